package tests

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestDecoyWaitsWithoutCPU: the runner's OOM decoy is there while the
// program runs, asleep, and uses no CPU. It waits in a system call that
// the policy's seccomp allowlist has; one the filter refused returned at
// once, and the decoy spun on the container's one CPU (a 512 MiB string
// took 4 s to exhaust 512m instead of 3).
func TestDecoyWaitsWithoutCPU(t *testing.T) {
	needEngine(t)
	t.Parallel()
	r := probe(t, "decoy")
	assert.Check(t, is.Equal(r["decoys"], float64(1)), "%v", r)
	assert.Check(t, is.Equal(r["state"], "S"), "%v", r)
	assert.Check(t, is.Equal(r["cpu_ticks"], float64(0)), "%v", r)
}
