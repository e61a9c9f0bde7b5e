package supervisor

import (
	"errors"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// Error is every failure of a run: the verdict it stands for and its
// cause (isolation.Error). isolation.Run's error is nil exactly for ok and
// program_error, and for a judged request, whose verdict is its tests'.
type Error struct {
	Verdict protocol.Verdict
	Err     error
}

// Error describes the failure, its verdict's prefix first.
func (e *Error) Error() string {
	if i := protocol.Severity(e.Verdict); i >= 0 {
		return protocol.Verdicts[i].Prefix + e.Err.Error()
	}
	return e.Err.Error()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// VerdictOf maps an error to its verdict: nil is ok, an *Error says its
// own, and anything else is an engine failure: the tool could not do its
// job.
func VerdictOf(err error) protocol.Verdict {
	var e *Error
	switch {
	case err == nil:
		return protocol.OK
	case errors.As(err, &e):
		return e.Verdict
	}
	return protocol.EngineFailure
}
