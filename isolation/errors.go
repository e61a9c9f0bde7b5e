package isolation

import "errors"

// Verdict is the one outcome of a run.
type Verdict string

// The verdicts, in the order the supervisor decides them.
const (
	OK             Verdict = "ok"
	ProgramError   Verdict = "program_error"
	Rejected       Verdict = "rejected"
	SandboxFailure Verdict = "sandbox_failure"
	Timeout        Verdict = "timeout"
	EngineFailure  Verdict = "engine_failure"
	OOM            Verdict = "oom"
	Interrupted    Verdict = "interrupted"
	// CommandNotFound is exec mode's interpreter missing from the image
	// (or not executable there): the image's fault, not the program's.
	CommandNotFound Verdict = "command_not_found"
)

// ExitCode is the CLI's exit status for a verdict. Interrupted runs exit
// with 128+signal, which the CLI decides from the signal itself.
func (v Verdict) ExitCode() int {
	switch v {
	case OK:
		return 0
	case ProgramError:
		return 1
	case Rejected:
		return 2
	case SandboxFailure:
		return 3
	case Timeout:
		return 124
	case EngineFailure:
		return 125
	case OOM:
		return 137
	case CommandNotFound:
		return 127
	case Interrupted:
		return 130
	}
	return 125
}

// Error is every failure this package returns: the verdict it stands for
// and its cause. Run's error is nil exactly for ok and program_error.
type Error struct {
	Verdict Verdict
	Err     error
}

// errorPrefix starts each verdict's message; a rejection is its cause.
var errorPrefix = map[Verdict]string{
	SandboxFailure:  "sandbox failure: ",
	Timeout:         "timeout: ",
	EngineFailure:   "engine failure: ",
	OOM:             "out of memory: ",
	Interrupted:     "interrupted: ",
	CommandNotFound: "command not found: ",
}

// Error describes the failure, its verdict first.
func (e *Error) Error() string { return errorPrefix[e.Verdict] + e.Err.Error() }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// verdictOf maps an error to its verdict: nil is ok, an *Error says its
// own, and anything else is an engine failure: the tool could not do its
// job.
func verdictOf(err error) Verdict {
	var e *Error
	switch {
	case err == nil:
		return OK
	case errors.As(err, &e):
		return e.Verdict
	}
	return EngineFailure
}
