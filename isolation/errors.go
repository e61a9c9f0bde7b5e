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

// verdicts is the one table of the verdicts, from the least serious to
// the most: each one's exit status (interrupted runs exit 128+signal,
// which the CLI decides from the signal itself) and the prefix of its
// errors' messages. A batch exits with the most serious verdict it saw.
var verdicts = []struct {
	verdict Verdict
	exit    int
	prefix  string
}{
	{OK, 0, ""},
	{ProgramError, 1, ""},
	{Rejected, 2, ""}, // a rejection's message is its cause
	{Timeout, 124, "timeout: "},
	{OOM, 137, "out of memory: "},
	{CommandNotFound, 127, "command not found: "},
	{SandboxFailure, 3, "sandbox failure: "},
	{EngineFailure, 125, "engine failure: "},
	{Interrupted, 130, "interrupted: "},
}

// row returns v's place in the table, its exit status and its prefix;
// an unknown verdict reads as an engine failure.
func (v Verdict) row() (severity, exit int, prefix string) {
	for i, r := range verdicts {
		if r.verdict == v {
			return i, r.exit, r.prefix
		}
	}
	return EngineFailure.row()
}

// ExitCode is the CLI's exit status for a verdict.
func (v Verdict) ExitCode() int {
	_, exit, _ := v.row()
	return exit
}

// Severity orders verdicts from ok (0) up: of several, the greater is the
// more serious.
func (v Verdict) Severity() int {
	i, _, _ := v.row()
	return i
}

// Error is every failure this package returns: the verdict it stands for
// and its cause. Run's error is nil exactly for ok and program_error.
type Error struct {
	Verdict Verdict
	Err     error
}

// Error describes the failure, its verdict first.
func (e *Error) Error() string {
	_, _, prefix := e.Verdict.row()
	return prefix + e.Err.Error()
}

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
