package cli

import (
	"context"
	"slices"
	"syscall"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/synapse-lang/synapse-isolation/isolation"
)

// TestStatusTable: one table gives each verdict its exit status and its
// severity; an interrupted run exits 128+signal when a signal ended it.
func TestStatusTable(t *testing.T) {
	order := []isolation.Verdict{isolation.OK, isolation.ProgramError, isolation.Rejected, isolation.Timeout, isolation.CPUTimeout,
		isolation.OOM, isolation.CommandNotFound, isolation.SandboxFailure, isolation.EngineFailure, isolation.Interrupted}
	exits := []int{0, 1, 2, 124, 124, 137, 127, 3, 125, 130}
	for i, v := range order {
		assert.Equal(t, status(v), exits[i], v)
		assert.Equal(t, severity(v), i, v)
	}
	assert.Equal(t, status("no-such"), 125, "an unknown verdict reads as an engine failure")
	sorted := slices.Clone(order)
	slices.Reverse(sorted)
	slices.SortFunc(sorted, func(a, b isolation.Verdict) int { return severity(a) - severity(b) })
	assert.DeepEqual(t, sorted, order)

	ctx, cancel := context.WithCancelCause(context.Background())
	assert.Equal(t, resultStatus(ctx, isolation.Interrupted), 130)
	cancel(&signalError{sig: syscall.SIGTERM})
	assert.Equal(t, resultStatus(ctx, isolation.Interrupted), 143)
	assert.Equal(t, resultStatus(ctx, isolation.Timeout), 124)
}
