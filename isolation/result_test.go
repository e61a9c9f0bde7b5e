package isolation

import (
	"errors"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/supervisor"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// TestErrorMessages: an error's message starts with its verdict's
// prefix, a rejection's is its cause alone.
func TestErrorMessages(t *testing.T) {
	err := &Error{Verdict: protocol.Timeout, Err: errors.New("x")}
	assert.Equal(t, err.Error(), "timeout: x")
	assert.Equal(t, (&Error{Verdict: protocol.Rejected, Err: errors.New("memory: too small")}).Error(), "memory: too small")
	assert.Equal(t, (&Error{Verdict: "no-such", Err: errors.New("x")}).Error(), "x")
	for _, r := range protocol.Verdicts {
		assert.Equal(t, (&Error{Verdict: Verdict(r.Name), Err: errors.New("x")}).Error(), r.Prefix+"x")
	}
	assert.Equal(t, supervisor.VerdictOf(err), protocol.Timeout)
	assert.Equal(t, supervisor.VerdictOf(errors.New("plain")), protocol.EngineFailure)
	assert.Equal(t, supervisor.VerdictOf(nil), protocol.OK)
}

// TestWorst: a judge's request takes its most serious test's verdict,
// in the table's order.
func TestWorst(t *testing.T) {
	tests := func(vs ...Verdict) []TestResult {
		var ts []TestResult
		for _, v := range vs {
			ts = append(ts, TestResult{Verdict: v})
		}
		return ts
	}
	assert.Equal(t, worst(nil), protocol.OK)
	assert.Equal(t, worst(tests(protocol.Points, protocol.WrongAnswer, protocol.PresentationError, protocol.Timeout, protocol.ProgramError, protocol.JudgeFailure, protocol.OK)), protocol.JudgeFailure)
	assert.Equal(t, worst(tests(protocol.WrongAnswer, protocol.Points)), protocol.WrongAnswer)
	assert.Equal(t, worst(tests(protocol.Timeout, protocol.OOM, protocol.CPUTimeout)), protocol.OOM)
	assert.Equal(t, worst(tests(protocol.OK, "no-such")), protocol.OK)
}
