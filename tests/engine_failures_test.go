package tests

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/poll"

	"github.com/synapse-lang/synapse-isolation/limits/seccomp"
)

func TestDockerKillIsNotOOM(t *testing.T) {
	needEngine(t)
	name := "synapse-iso-" + randomHex()
	cmd, stdout := startRun(t, name)
	assert.NilError(t, exec.Command("docker", "kill", name).Run())
	err := cmd.Wait()
	var ee *exec.ExitError
	assert.Assert(t, errors.As(err, &ee), "%v", err)
	assert.Check(t, is.Equal(ee.ExitCode(), 3), "a plain SIGKILL is a sandbox failure, not OOM")
	assert.Check(t, is.Contains(stdout.String(), "killed (exit 137) without an OOM event"))
	assertGone(t, name)
}

func TestEngineFailures(t *testing.T) {
	needEngine(t)
	t.Parallel()
	noDocker := t.TempDir()
	missing := "sha256:" + strings.Repeat("0", 64)
	for name, tc := range map[string]struct {
		env   []string
		image string
		want  string
	}{
		"daemon unreachable": {[]string{"DOCKER_HOST=unix://" + filepath.Join(t.TempDir(), "dead.sock")}, refImage, "Cannot connect to the Docker daemon"},
		"image missing":      {nil, missing, "No such image: " + missing},
		"docker not on PATH": {[]string{"PATH=" + noDocker}, refImage, `docker CLI "docker": not found in PATH`},
	} {
		r := tool(t, tc.env, "", "run", "--image", tc.image, "--code", "1+2")
		assert.Check(t, is.Equal(r.code, 125), name)
		assert.Check(t, is.Equal(r.res.Verdict, "engine_failure"), name)
		assert.Check(t, is.Contains(r.stderr, tc.want), name)
		assert.Check(t, r.res.ContainerExit == nil, "%s: no container ran to have an exit status: %v", name, r.res.ContainerExit)
		switch name {
		case "image missing":
			// Its labels are read before docker run and cannot be: no
			// client starts, so there is no container to look for.
			assert.Check(t, is.Equal(r.res.Container, ""), name)
		case "daemon unreachable":
			// The reference image's labels may be cached from earlier
			// runs, so docker run may have been tried: either way nothing
			// of this run is left.
			if r.res.Container != "" {
				assertGone(t, r.res.Container)
			}
		}
	}
}

func TestHostileImage(t *testing.T) {
	needEngine(t)
	t.Parallel()
	for mode, want := range map[string]string{
		"two-json":         "trailing data after the JSON value",
		"malformed":        "response: invalid character",
		"missing":          "response: empty",
		"duplicate-ok":     `response: duplicate field "ok"`,
		"big-output":       "output and stderr are 65537 bytes, over the 65536 byte cap",
		"big-response":     "response larger than 1048576 bytes",
		"endless":          "response larger than 1048576 bytes",
		"lying-truncation": "output_truncated=true disagrees",
		"unknown-field":    `unknown field "callable"`,
		"nonzero-valid":    "container exited 1 (a valid response needs exit 0)",
		"old-version":      "response: protocol version 1, want 8",
		"cpu-claim":        "response: claims 1h0m0s of CPU time in ",
		"peak-claim":       "response: claims a memory peak of 1099511627776 bytes, over the 512m limit",
	} {
		r := tool(t, nil, "", "run", "--image", hostileImage, "--code", mode)
		assert.Check(t, is.Equal(r.code, 3), "%s: %s", mode, r.stderr)
		assert.Check(t, is.Equal(r.res.Verdict, "sandbox_failure"), mode)
		assert.Check(t, is.Contains(r.stderr, want), mode)
		assertGone(t, r.res.Container)
	}
}

func TestDoctor(t *testing.T) {
	needEngine(t)
	t.Parallel()
	r := tool(t, nil, "", "doctor", "--image", refImage)
	t.Logf("doctor:\n%s", r.stdout)
	assert.Equal(t, r.code, 0, r.stdout)
	assert.Check(t, !strings.Contains(r.stdout, "FAIL"))
	for _, check := range []string{"uid/gid", "capabilities", "no new privileges", "seccomp", "memory", "swap", "pids",
		"cpu", "open files", "core dumps", "/tmp", "read-only root", "network", "/dev/shm", "docker socket", "environment"} {
		assert.Check(t, is.Contains(r.stdout, "PASS  "+check+" "), check)
	}

	// Without an image no container runs: said in a SKIP line, not left
	// to read as if every boundary had passed.
	r = tool(t, []string{"SYNAPSE_IMAGE="}, "", "doctor")
	assert.Check(t, is.Equal(r.code, 0), r.stdout)
	assert.Check(t, is.Contains(r.stdout, "\nSKIP  container          no container ran, so no boundary was checked inside one: give --image ID (or set SYNAPSE_IMAGE)\n"), r.stdout)

	cfg := t.TempDir()
	assert.NilError(t, os.WriteFile(filepath.Join(cfg, "config.json"), []byte(`{"proxies":{"default":{"httpsProxy":"http://`+sentinel+`.invalid"}}}`), 0o600))
	r = tool(t, []string{"DOCKER_CONFIG=" + cfg}, "", "doctor")
	assert.Check(t, is.Equal(r.code, 1))
	assert.Check(t, is.Contains(r.stdout, "FAIL  docker config"))
}

// TestEngineRecordsThePolicy reads the daemon's own record of a running
// container: an independent witness that every flag reached the engine,
// including the one no payload can observe from inside (--log-driver none).
func TestEngineRecordsThePolicy(t *testing.T) {
	needEngine(t)
	name := "synapse-iso-" + randomHex()
	cmd, _ := startRun(t, name)
	out, err := exec.Command("docker", "inspect", "--format",
		`{{.Config.User}}|{{.HostConfig.ReadonlyRootfs}}|{{.HostConfig.CapDrop}}|{{.HostConfig.CapAdd}}|{{.HostConfig.SecurityOpt}}|`+
			`{{.HostConfig.NetworkMode}}|{{.HostConfig.IpcMode}}|{{.HostConfig.PidsLimit}}|{{.HostConfig.Memory}}|{{.HostConfig.MemorySwap}}|`+
			`{{.HostConfig.NanoCpus}}|{{.HostConfig.Tmpfs}}|{{.HostConfig.LogConfig.Type}}|{{.HostConfig.Privileged}}|{{.HostConfig.Binds}}|`+
			`{{.Mounts}}|{{.HostConfig.Devices}}|{{.HostConfig.AutoRemove}}|{{range .HostConfig.Ulimits}}{{.Name}}={{.Soft}}:{{.Hard}} {{end}}|{{.Config.Env}}`,
		name).CombinedOutput()
	assert.NilError(t, err, string(out))
	assert.NilError(t, cmd.Process.Signal(syscall.SIGTERM))
	_ = cmd.Wait()
	assertGone(t, name)
	got := strings.Split(strings.TrimSpace(string(out)), "|")
	for i, v := range got {
		if v == "<no value>" { // how docker's template shows an absent list
			got[i] = "[]"
		}
	}
	// The client sends the profile file's content, compacted.
	var profile bytes.Buffer
	assert.NilError(t, json.Compact(&profile, seccomp.Profile()))
	want := []string{"65534:65534", "true", "[ALL]", "[]", "[no-new-privileges seccomp=" + profile.String() + "]", "none", "none", "64",
		"536870912", "536870912", "1000000000", "map[/tmp:rw,noexec,nosuid,nodev,size=32m,mode=1777]", "none", "false",
		"[]", "[]", "[]", "true", "core=0:0 nofile=64:64 ", "[PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin]"}
	assert.DeepEqual(t, got, want)
}

// TestCleanupNeverTouchesOtherContainers makes runs fail in the two ways
// that would make a cleanup by name remove someone else's container: the
// --name already taken, and a --name that docker, finding no such name,
// would resolve as a prefix of another container's ID.
func TestCleanupNeverTouchesOtherContainers(t *testing.T) {
	needEngine(t)
	t.Parallel()
	foreignName := "foreign-" + randomHex()
	out, err := exec.Command("docker", "create", "--name", foreignName, "--network", "none", refImage).Output()
	assert.NilError(t, err)
	foreignID := strings.TrimSpace(string(out))
	t.Cleanup(func() { _ = exec.Command("docker", "rm", "-f", foreignID).Run() })

	missing := "sha256:" + strings.Repeat("0", 64)
	for _, tc := range []struct{ name, image, want string }{
		{foreignName, refImage, "Conflict"},
		{foreignID[:12], missing, "No such image"},
	} {
		r := tool(t, nil, "", "run", "--image", tc.image, "--name", tc.name, "--code", "1+2")
		assert.Check(t, is.Equal(r.code, 125), r.stderr)
		assert.Check(t, is.Contains(r.stderr, tc.want))
		err := exec.Command("docker", "inspect", "--format", "{{.Id}}", foreignID).Run()
		assert.Check(t, err == nil, "the foreign container must survive a failed run named %q", tc.name)
	}
}

// TestTwoLiveRunsShareAName is `make -j` with a fixed --name: run A holds
// the name while it works; run B, given the same name, is refused by
// docker (125) and its cleanup must not touch A, which ends with its own
// result. The name is cosmetic; cleanup goes by each run's own id.
func TestTwoLiveRunsShareAName(t *testing.T) {
	needEngine(t)
	t.Parallel()
	name := "synapse-iso-shared-" + randomHex()
	a := exec.Command(toolBin, "run", "--image", refImage, "--timeout", "60s", "--name", name,
		"--code", "n = 0\nwhile n < 10000000:\n  n += 1\nn")
	var aOut bytes.Buffer
	a.Stdout = &aOut
	assert.NilError(t, a.Start())
	t.Cleanup(func() { _ = a.Process.Kill() })
	poll.WaitOn(t, func(poll.LogT) poll.Result {
		out, _ := exec.Command("docker", "ps", "--quiet", "--filter", "name=^/?"+name+"$", "--filter", "status=running").Output()
		if strings.TrimSpace(string(out)) != "" {
			return poll.Success()
		}
		return poll.Continue("run A not running yet")
	}, poll.WithTimeout(20*time.Second), poll.WithDelay(20*time.Millisecond))

	b := tool(t, nil, "", "run", "--image", refImage, "--name", name, "--code", "1+2")
	assert.Check(t, is.Equal(b.code, 125), b.stderr)
	assert.Check(t, is.Contains(b.stderr, "is already in use"))
	assertRunGone(t, b.res.RunID)

	assert.NilError(t, a.Wait(), "run A: %s", aOut.String())
	var res runJSON
	assert.NilError(t, json.Unmarshal(aOut.Bytes(), &res))
	assert.Check(t, is.Equal(res.Verdict, "ok"), aOut.String())
	assert.Check(t, is.Equal(string(res.Result), "10000000"))
	assert.Check(t, res.RunID != b.res.RunID)
	assertGone(t, name)
	assertRunGone(t, res.RunID)
}
