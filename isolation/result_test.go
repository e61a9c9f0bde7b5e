package isolation

import (
	"errors"
	"testing"

	"gotest.tools/v3/assert"
)

// TestErrorMessages: an error's message starts with its verdict's
// prefix, a rejection's is its cause alone.
func TestErrorMessages(t *testing.T) {
	err := &Error{Verdict: Timeout, Err: errors.New("x")}
	assert.Equal(t, err.Error(), "timeout: x")
	assert.Equal(t, (&Error{Verdict: Rejected, Err: errors.New("memory: too small")}).Error(), "memory: too small")
	assert.Equal(t, verdictOf(err), Timeout)
	assert.Equal(t, verdictOf(errors.New("plain")), EngineFailure)
	assert.Equal(t, verdictOf(nil), OK)
}
