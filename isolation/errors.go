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
	// CPUTimeout is the program stopped at its CPU-time limit
	// (limits.Config.CPUTime), where Timeout is the wall-clock limit.
	CPUTimeout    Verdict = "cpu_timeout"
	EngineFailure Verdict = "engine_failure"
	OOM           Verdict = "oom"
	Interrupted   Verdict = "interrupted"
	// CommandNotFound is exec mode's interpreter missing from the image
	// (or not executable there): the image's fault, not the program's.
	CommandNotFound Verdict = "command_not_found"
	// CompileError is a program its language's compile step refused
	// (Result.Compile says how).
	CompileError Verdict = "compile_error"
	// WrongAnswer is a judge's request whose most serious test ran and
	// wrote other than its expected output.
	WrongAnswer Verdict = "wrong_answer"
)

// prefixes begin the messages of each verdict's errors; a rejection's
// message is its cause alone.
var prefixes = map[Verdict]string{
	Timeout:         "timeout: ",
	CPUTimeout:      "cpu timeout: ",
	OOM:             "out of memory: ",
	CommandNotFound: "command not found: ",
	SandboxFailure:  "sandbox failure: ",
	EngineFailure:   "engine failure: ",
	Interrupted:     "interrupted: ",
}

// Error is every failure this package returns: the verdict it stands for
// and its cause. Run's error is nil exactly for ok and program_error.
type Error struct {
	Verdict Verdict
	Err     error
}

// Error describes the failure, its verdict first.
func (e *Error) Error() string {
	return prefixes[e.Verdict] + e.Err.Error()
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
