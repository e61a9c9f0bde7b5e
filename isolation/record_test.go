package isolation

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/docker"
	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// TestRecordJudges: the record proves what gVisor hides from the runner;
// each judge fails on the one field it reads.
func TestRecordJudges(t *testing.T) {
	good := docker.Record{RunID: "x", Runtime: "runsc", Memory: int64(limits.DefaultMemory), MemorySwap: int64(limits.DefaultMemory), PidsLimit: limits.GVisorHostPIDs}
	v := sight{record: &good, memory: limits.DefaultMemory, runtime: "runsc"}
	for _, c := range columns[limits.Runsc] {
		if c.record {
			_, wrong := c.judge(v)
			assert.Check(t, is.Equal(wrong, ""), c.Check)
		}
	}
	for name, tc := range map[string]struct {
		edit  func(*docker.Record)
		check string
		want  string
	}{
		"runc":      {func(r *docker.Record) { r.Runtime = "runc" }, "host runtime", `the engine ran the container under "runc", not "runsc"`},
		"swap":      {func(r *docker.Record) { r.MemorySwap = -1 }, "swap", "the engine's record allows swap or another limit (want Memory and MemorySwap 536870912)"},
		"no pids":   {func(r *docker.Record) { r.PidsLimit = -1 }, "host pids", "the host's task limit is -1, want 320"},
		"runc pids": {func(r *docker.Record) { r.PidsLimit = limits.PIDs }, "host pids", "the host's task limit is 64, want 320"},
	} {
		t.Run(name, func(t *testing.T) {
			r := good
			tc.edit(&r)
			v := sight{record: &r, memory: limits.DefaultMemory, runtime: "runsc"}
			for _, c := range columns[limits.Runsc] {
				if c.Check == tc.check {
					_, wrong := c.judge(v)
					assert.Check(t, is.Equal(wrong, tc.want))
				}
			}
		})
	}
	// Without the record, its checks fail: no column passes unread.
	for _, c := range columns[limits.Runsc] {
		if c.record {
			_, wrong := c.judge(sight{})
			assert.Check(t, is.Equal(wrong, "the engine's record of the container was not read"), c.Check)
		}
	}
}

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
	assert.Check(t, is.Equal(res.Verdict, SandboxFailure), "%v", err)
	assert.Check(t, is.ErrorContains(err, "the engine's record allows swap or another limit (want Memory and MemorySwap 536870912)"))
	assert.Check(t, is.Equal(fakedocker.Stdin(state), ""), "the program was never sent")

	res, state, err = runFake(t, "gvisor-norecord", runsc)
	assert.Check(t, is.Equal(res.Verdict, EngineFailure), "%v", err)
	assert.Check(t, is.ErrorContains(err, "reading the engine's record of container"))
	assert.Check(t, is.Equal(fakedocker.Stdin(state), ""), "the program was never sent")

	// gVisor's hello under runc's column is refused: the kernel is not the host's.
	res, _, err = runFake(t, "gvisor")
	assert.Check(t, is.Equal(res.Verdict, SandboxFailure), "%v", err)
	assert.Check(t, is.ErrorContains(err, "the runner sees gVisor's kernel, not the host's"))
}
