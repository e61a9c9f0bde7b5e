package isolation

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/attest"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/hello"
	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/attestation"
	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
	"github.com/synapse-lang/synapse-isolation/limits"
)

func goodSelfcheck() hello.Selfcheck { return attestation.Perfect(int64(limits.DefaultMemory)) }

// runcAttest is doctor's lines for a hello judged under runc, whose column
// reads no record.
func runcAttest(s hello.Selfcheck, memory limits.Bytes) []Check {
	return attestChecks(limits.Runc, attest.Sight{Hello: s, Memory: memory})
}

func failedNames(cs []Check) []string {
	var out []string
	for _, c := range cs {
		if !c.OK {
			out = append(out, c.Name)
		}
	}
	return out
}

func TestCheckIDs(t *testing.T) {
	for name, want := range map[string]string{"uid/gid": "uid-gid", "/dev/shm": "dev-shm", "docker cli": "docker-cli", "/tmp": "tmp"} {
		assert.Equal(t, pass(name, "").ID, want)
	}
	seen := map[string]bool{}
	for _, c := range runcAttest(goodSelfcheck(), limits.DefaultMemory) {
		assert.Assert(t, c.ID != "" && !seen[c.ID], "ids are present and unique: %q", c.ID)
		seen[c.ID] = true
	}
}

func TestEngineChecks(t *testing.T) {
	good := engineInfo{ServerVersion: "27.0.0", CgroupVersion: "2", CgroupDriver: "systemd", MemoryLimit: true,
		SwapLimit: true, PidsLimit: true, CPUCfsQuota: true, SecurityOptions: []string{"name=seccomp,profile=default"}}
	assert.DeepEqual(t, failedNames(engineChecks(good)), []string(nil))

	bad := good
	bad.SwapLimit = false
	bad.CgroupVersion = "1"
	bad.SecurityOptions = []string{"name=rootless"}
	bad.Warnings = []string{"WARNING: No swap limit support", "WARNING: bridge-nf-call-iptables is disabled"}
	assert.DeepEqual(t, failedNames(engineChecks(bad)), []string{"swap limit", "rootless", "security options", "engine warnings"})
}

func TestDoctorCLIVersion(t *testing.T) {
	t.Parallel()
	for mode, want := range map[string]Check{
		"ok":         {Name: "docker cli", OK: true},
		"broken-cli": {Name: "docker cli", OK: false},
	} {
		t.Run(mode, func(t *testing.T) {
			o, _ := fake(t, mode)
			checks := Doctor(context.Background(), o)
			assert.Equal(t, checks[0].Name, want.Name)
			assert.Equal(t, checks[0].OK, want.OK, checks[0].Detail)
			// The fake has no daemon: that is the daemon check's failure alone.
			assert.Equal(t, checks[1].Name, "daemon")
			assert.Assert(t, !checks[1].OK)
		})
	}
}

// TestDoctorSlowStart: on a host slow to start a container (the fake's
// hello comes 4 s after docker run), doctor's selfcheck fails under a
// short timeout, saying how to wait longer, and passes under a long one:
// the timeout bounds the selfcheck's run, and nothing else fails.
func TestDoctorSlowStart(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		failed  []string
		detail  string
	}{
		// The hello comes at 4 s at the earliest, the deadline at 1.5 s.
		{"short", 1500 * time.Millisecond, []string{"selfcheck"},
			"timeout: the deadline of 1.5s passed before the sandbox was ready (no hello from the runner yet); " +
				"the program was never sent; on a slow host raise the deadline with doctor --timeout"},
		// Fifteen times the fake's start: no loaded machine meets it.
		{"long", time.Minute, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o, state := fake(t, "slow-start")
			o.Limits.Timeout = tc.timeout
			checks := Doctor(context.Background(), o)
			assert.DeepEqual(t, failedNames(checks), tc.failed)
			last := checks[len(checks)-1]
			if tc.detail != "" {
				assert.Equal(t, last.Detail, tc.detail)
			} else {
				assert.Assert(t, last.Proves != "", "the report ends with the selfcheck's attestation: %+v", last)
			}
			assert.Assert(t, is.Len(fakedocker.Containers(state), 0), "a container was left behind")
		})
	}
}

// TestDoctorContents: doctor names the Debian lock and the requirements
// file an operator's image was built from by the SHA-256 its labels
// record, says when an image has neither, and fails a label that is not
// a digest.
func TestDoctorContents(t *testing.T) {
	t.Parallel()
	for mode, want := range map[string]Check{
		"ok":           {OK: true, Detail: "its kind's own packages (no io.synapse-isolation.debian-lock or io.synapse-isolation.requirements label)"},
		"own-packages": {OK: true, Detail: "Debian lock sha256:" + strings.Repeat("a", 64) + ", requirements sha256:" + strings.Repeat("b", 64)},
		"bad-contents": {OK: false, Detail: `label io.synapse-isolation.requirements: want sha256:<64 hex>, got "md5:0123"`},
	} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			o, _ := fake(t, mode)
			client, err := newClient(o.Engine)
			assert.NilError(t, err)
			c := contentsCheck(context.Background(), client, o.Image)
			assert.Check(t, is.Equal(c.Name, "image contents"))
			assert.Check(t, is.Equal(c.OK, want.OK))
			assert.Check(t, is.Equal(c.Detail, want.Detail))
		})
	}
}

// TestSelfcheckFailureHint: the hint to raise doctor's --timeout follows
// exactly the errors the supervisor finds to be the run's own deadline
// passing before the hello (supervisor.HelloTimedOut, tested there).
func TestSelfcheckFailureHint(t *testing.T) {
	for _, err := range []error{errors.New("the deadline of 1s passed before the sandbox was ready"), &Error{Verdict: protocol.SandboxFailure, Err: errors.New("x")}} {
		assert.Equal(t, selfcheckFailure(err), err.Error(), "words alone never get the hint")
	}
}
