package isolation

import (
	"errors"
	"slices"
	"testing"

	"gotest.tools/v3/assert"
)

// TestVerdictTable: one table gives each verdict its exit status, its
// severity and its message prefix.
func TestVerdictTable(t *testing.T) {
	order := []Verdict{OK, ProgramError, Rejected, Timeout, OOM, CommandNotFound, SandboxFailure, EngineFailure, Interrupted}
	exits := []int{0, 1, 2, 124, 137, 127, 3, 125, 130}
	for i, v := range order {
		assert.Equal(t, v.ExitCode(), exits[i], v)
		assert.Equal(t, v.Severity(), i, v)
	}
	assert.Equal(t, Verdict("no-such").ExitCode(), 125, "an unknown verdict reads as an engine failure")
	sorted := slices.Clone(order)
	slices.Reverse(sorted)
	slices.SortFunc(sorted, func(a, b Verdict) int { return a.Severity() - b.Severity() })
	assert.DeepEqual(t, sorted, order)

	err := &Error{Verdict: Timeout, Err: errors.New("x")}
	assert.Equal(t, err.Error(), "timeout: x")
	assert.Equal(t, (&Error{Verdict: Rejected, Err: errors.New("memory: too small")}).Error(), "memory: too small")
	assert.Equal(t, verdictOf(err), Timeout)
	assert.Equal(t, verdictOf(errors.New("plain")), EngineFailure)
	assert.Equal(t, verdictOf(nil), OK)
}
