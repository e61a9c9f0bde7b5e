package isolation

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
)

// TestRunUnderGVisorReadsTheRecord: a run under runsc passes on gVisor's
// hello and the engine's record, read while the sandbox boots; a record
// that allows swap, or none, refuses it before the source is sent.
func TestRunUnderGVisorReadsTheRecord(t *testing.T) {
	t.Parallel()
	runsc := func(o *Options) { o.Runtime = "runsc" }
	res, state, err := runFake(t, "gvisor", runsc)
	assert.NilError(t, err)
	assert.Check(t, res.Sandboxed)
	assert.Check(t, is.Contains(fakedocker.Stdin(state), `"source":"1+2"`))

	res, state, err = runFake(t, "gvisor-swap", runsc)
	assert.Check(t, is.Equal(res.Verdict, protocol.SandboxFailure), "%v", err)
	assert.Check(t, is.ErrorContains(err, "the engine's record allows swap or another limit (want Memory and MemorySwap 536870912)"))
	assert.Check(t, is.Equal(fakedocker.Stdin(state), ""), "the program was never sent")

	res, state, err = runFake(t, "gvisor-norecord", runsc)
	assert.Check(t, is.Equal(res.Verdict, protocol.EngineFailure), "%v", err)
	assert.Check(t, is.ErrorContains(err, "reading the engine's record of container"))
	assert.Check(t, is.Equal(fakedocker.Stdin(state), ""), "the program was never sent")

	// gVisor's hello under runc's column is refused: the kernel is not the host's.
	res, _, err = runFake(t, "gvisor")
	assert.Check(t, is.Equal(res.Verdict, protocol.SandboxFailure), "%v", err)
	assert.Check(t, is.ErrorContains(err, "the runner sees gVisor's kernel, not the host's"))
}
