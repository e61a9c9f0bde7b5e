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

// RejectedError is bad input or configuration, found before anything started.
type RejectedError struct{ Err error }

// Error describes the failure.
func (e *RejectedError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying cause.
func (e *RejectedError) Unwrap() error { return e.Err }

// SandboxError is a container that exited nonzero (not by OOM) or answered
// with a missing, malformed, oversized or inconsistent response.
type SandboxError struct{ Err error }

// Error describes the failure.
func (e *SandboxError) Error() string { return "sandbox failure: " + e.Err.Error() }

// Unwrap returns the underlying cause.
func (e *SandboxError) Unwrap() error { return e.Err }

// TimeoutError is a run that hit the host deadline; its container was removed.
type TimeoutError struct{ Err error }

// Error describes the failure.
func (e *TimeoutError) Error() string { return "timeout: " + e.Err.Error() }

// Unwrap returns the underlying cause.
func (e *TimeoutError) Unwrap() error { return e.Err }

// EngineError is docker itself failing: missing CLI, unreachable daemon,
// missing image, a limit it could not apply, or a cleanup it could not finish.
type EngineError struct{ Err error }

// Error describes the failure.
func (e *EngineError) Error() string { return "engine failure: " + e.Err.Error() }

// Unwrap returns the underlying cause.
func (e *EngineError) Unwrap() error { return e.Err }

// OOMError is a container killed by its memory limit, confirmed by evidence.
type OOMError struct{ Err error }

// Error describes the failure.
func (e *OOMError) Error() string { return "out of memory: " + e.Err.Error() }

// Unwrap returns the underlying cause.
func (e *OOMError) Unwrap() error { return e.Err }

// InterruptedError is a run stopped because its context was cancelled (a
// signal to the CLI, say); its container was removed. Err wraps the cause.
type InterruptedError struct{ Err error }

// Error describes the failure.
func (e *InterruptedError) Error() string { return "interrupted: " + e.Err.Error() }

// Unwrap returns the underlying cause.
func (e *InterruptedError) Unwrap() error { return e.Err }

// CommandError is an exec-mode command the runner could not start in the
// image: not found there, or not executable.
type CommandError struct{ Err error }

// Error describes the failure.
func (e *CommandError) Error() string { return "command not found: " + e.Err.Error() }

// Unwrap returns the underlying cause.
func (e *CommandError) Unwrap() error { return e.Err }

// VerdictOf maps an error returned by this package to its verdict. Errors
// from elsewhere count as engine failures: the tool could not do its job.
func VerdictOf(err error) Verdict {
	var (
		rej *RejectedError
		sb  *SandboxError
		to  *TimeoutError
		eng *EngineError
		oom *OOMError
		in  *InterruptedError
		cmd *CommandError
	)
	switch {
	case err == nil:
		return OK
	case errors.As(err, &in):
		return Interrupted
	case errors.As(err, &rej):
		return Rejected
	case errors.As(err, &to):
		return Timeout
	case errors.As(err, &oom):
		return OOM
	case errors.As(err, &cmd):
		return CommandNotFound
	case errors.As(err, &sb):
		return SandboxFailure
	case errors.As(err, &eng):
		return EngineFailure
	}
	return EngineFailure
}
