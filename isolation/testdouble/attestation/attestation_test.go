package attestation

import (
	"bytes"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp/cmpopts"
	"gotest.tools/v3/assert"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/hello"
)

// recorded is a hello the reference runner wrote under the policy's argv
// with --memory 512m (testdata/hello-*.json).
func recorded(t *testing.T, name string) hello.Selfcheck {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	assert.NilError(t, err)
	h, err := protocol.DecodeHello(bytes.TrimSuffix(b, []byte("\n")))
	assert.NilError(t, err)
	return *h.Selfcheck
}

// TestPerfectGVisorIsWhatRunscShows: the gVisor double is the hello the
// runner wrote under the current runsc (--pids-limit 320 --ulimit
// nproc=64:64), all but how long it took.
func TestPerfectGVisorIsWhatRunscShows(t *testing.T) {
	got := recorded(t, "hello-runsc.json")
	assert.Assert(t, got.GVisor())
	assert.DeepEqual(t, PerfectGVisor(512<<20), got, cmpopts.IgnoreFields(hello.Selfcheck{}, "TookMicros"))
}

// TestPerfectIsWhatRuncShows: the runc double is the hello the runner
// wrote under runc, but for what belongs to the host, not the policy: its
// kernel, and RLIMIT_NPROC, the daemon's own (96362 here, where the
// daemon was started by hand; systemd's docker.service sets infinity,
// which the double claims).
func TestPerfectIsWhatRuncShows(t *testing.T) {
	got := recorded(t, "hello-runc.json")
	assert.Assert(t, !got.GVisor())
	assert.DeepEqual(t, Perfect(512<<20), got, cmpopts.IgnoreFields(hello.Selfcheck{},
		"TookMicros", "KernelRelease", "KernelVersion", "NProcSoft", "NProcHard"))
}
