package protocol

import "encoding/json"

// Version is the protocol version; the hello and every response carry it
// in "v". Version 8 added a judge's checker and interactor: the request
// frame's "role" (Role), the output frames a checked request's runner
// writes before its response (OutputHeader), the live frames of an
// interactive one (LiveHeader), and a test result's "checked_bytes". Version 7 added the request frame's "stop_ms", the host's stop
// (WithStop): a version 6 runner would refuse it as an unknown field.
// Version 6 added a judge's request: the request's "tests" and
// "compare", their data after the request, and the response's "compile"
// and "tests". Version 5 added the request's "binary" and "collect" and the
// response's "files": a version 4 runner would ignore neither silently (it
// refuses unknown fields), but is refused at its hello all the same.
// Version 4 added the response's "output_replaced_bytes" and
// "stderr_replaced_bytes": a version 3 runner replaces bytes that are not
// UTF-8 without saying so. Version 3 added the request's "stdin" and "files" and the
// response's "stderr", and changed exec mode: the interpreter reads the
// source from a file, not from its stdin, and "output" is its stdout
// alone, head and tail kept. A version 2 runner would answer a request of
// source alone with stdout and stderr merged, so it is refused at its
// hello.
const Version = 8

// Error types a response can carry.
const (
	ErrSyntax   = "syntax"   // the program does not parse or resolve
	ErrRuntime  = "runtime"  // the program raised while running
	ErrTimeout  = "timeout"  // the runner's own deadline stopped the program
	ErrCPUTime  = "cpu_time" // the program reached its CPU-time limit (--cpu-time) and was stopped
	ErrRequest  = "request"  // the runner refused the request
	ErrExec     = "exec"     // exec mode: the command failed
	ErrCommand  = "command"  // exec mode: the command could not be started (not in the image, not executable)
	ErrOOM      = "oom"      // the program exhausted its memory limit; the message names the evidence
	ErrInternal = "internal" // the runner itself failed
	ErrCompile  = "compile"  // the compile step failed; Response.Compile says how
)

// Error is a program or runner failure, with a position where one exists.
type Error struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
}

// Exit is how an exec-mode command ended.
type Exit struct {
	Code   int    `json:"code"`
	Signal string `json:"signal,omitempty"`
}

// Response is the runner's single answer.
type Response struct {
	V  int  `json:"v"`
	OK bool `json:"ok"`
	// Result is the value of the program's last expression statement as a
	// JSON value, or, where no JSON value exists, its repr as a JSON string
	// (then ResultRepr is true). It is null when there is no result.
	Result     json.RawMessage `json:"result"`
	ResultType string          `json:"result_type,omitempty"`
	ResultRepr bool            `json:"result_repr,omitempty"`
	// Streams are the program's standard output (Starlark: print())
	// and standard error (exec mode), within limits.MaxOutputBytes.
	Streams
	Error *Error `json:"error,omitempty"`
	Exit  *Exit  `json:"exit,omitempty"`
	// ElapsedMicros is the runner's own time from the request's arrival to
	// this response. It is the runner's word: the host reports it as a
	// timing, bounded by what it measured itself, and decides nothing by it.
	ElapsedMicros int64 `json:"elapsed_us,omitempty"`
	// HandshakeMicros is the runner's own time from writing its hello to
	// the request's arrival: the handshake's cost (the host's judgement and
	// the two trips through docker). The runner's word, like ElapsedMicros.
	HandshakeMicros int64 `json:"handshake_us,omitempty"`
	// Usage is what the program used, read by the runner from its
	// container's cgroup; absent when the runner ran no program.
	Usage *Usage `json:"usage,omitempty"`
	// Compile is the compile step of a language that has one, in a
	// judge's request or not; absent without one.
	Compile *Step `json:"compile,omitempty"`
	// Tests are a judge's request's results, one per test in the
	// request's order; absent without tests. The tests' output shares
	// limits.MaxOutputBytes with the compiler's (TestResult.Dropped).
	Tests []TestResult `json:"tests,omitempty"`
	// Files are the files of the program's working directory that match
	// the request's Collect, by name, once the program ended: each
	// returned whole or an error; absent when none was asked for or none
	// matched.
	Files map[string]File `json:"files,omitempty"`
}

// Step is one process of a judge's request, the compiler or a test: its
// output and stderr as a response keeps them (Response.Output), how it
// ended, its wall-clock time in microseconds and its usage (CPU time on
// the container's cgroup from its start to the end of everything it
// started; the memory peak of its process tree, wait4's maximum
// resident set, capped at the memory limit).
type Step struct {
	Streams
	Exit *Exit `json:"exit,omitempty"`
	// Error says why the step failed: ErrExec (a nonzero exit or a
	// signal), ErrTimeout, ErrCPUTime, ErrOOM, ErrCommand; nil when it
	// exited 0.
	Error      *Error `json:"error,omitempty"`
	WallMicros int64  `json:"wall_us"`
	Usage      *Usage `json:"usage,omitempty"`
}

// TestResult is one test's result: its name, verdict, whether its
// output matched, and its step.
type TestResult struct {
	Name string `json:"name"`
	// Verdict is the test's: TestOK, TestWrongAnswer, TestProgramError,
	// TestTimeout, TestCPUTimeout or TestOOM.
	Verdict string `json:"verdict"`
	// Match is whether stdout matched the expected output; nil when the
	// test has none, or the program did not exit 0.
	Match *bool `json:"match"`
	// Line is the first line of stdout that differs, where Match is false.
	Line int64 `json:"line,omitempty"`
	// Dropped: the test matched, and its output and stderr were left out
	// to leave the shared bound to the tests that did not (the byte
	// counts stay).
	Dropped bool `json:"output_dropped,omitempty"`
	// NotRun: the request's own deadline came before the test's turn
	// (a timeout), or, in an interactive request or an interactor's, the
	// other side ended before it (a program error, ErrInternal's).
	NotRun bool `json:"not_run,omitempty"`
	// Stopped: an interactive test's process was stopped by the runner
	// at the other side's end (=end, or the host's stream ending), not at
	// a limit of its own: its verdict is then a timeout that is not its.
	Stopped bool `json:"stopped,omitempty"`
	// TimeLimitMS is the wall-clock limit the test ran under, and
	// CPUTimeLimitMS its CPU-time limit (0: none): --test-timeout and
	// --cpu-time times the language's time factor, or the test's share
	// of the time left without --test-timeout.
	TimeLimitMS    int64 `json:"time_limit_ms"`
	CPUTimeLimitMS int64 `json:"cpu_time_limit_ms"`
	// CheckedBytes, in a checked request's result, is how much of the
	// test's stdout its output frame carried to the checker: all of it,
	// up to limits.MaxCheckedOutput; absent for a test that was not
	// checked (it did not exit 0 within its limits).
	CheckedBytes *int64 `json:"checked_bytes,omitempty"`
	Step
}

// The names of the verdicts a runner may give a test (Verdicts' Test);
// a judge's request's verdict is its most serious test's (Severity), or
// compile_error.
const (
	TestOK           = string(OK)
	TestWrongAnswer  = string(WrongAnswer)
	TestProgramError = string(ProgramError)
	TestTimeout      = string(Timeout)
	TestCPUTimeout   = string(CPUTimeout)
	TestOOM          = string(OOM)
)

// File is one collected file: its bytes, their count and SHA-256 (hex),
// or, for a match that was not returned, why.
type File struct {
	Bytes  int64  `json:"bytes,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
	Data   []byte `json:"base64,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Usage is what a program used, the runner's word: the host bounds each
// value by what it can check and decides nothing else by them. A field is
// null where the runner could not read it.
type Usage struct {
	// CPUMicros is the CPU time (user plus system) of the container's
	// cgroup from the request's arrival until every process of the program
	// was reaped: the program and all it started, plus the runner's own
	// share while it watched (a few ms per second). Under gVisor the
	// cgroup is gVisor's own, which counts more than the host for several
	// busy tasks; the host cuts a claim past the quota to it.
	CPUMicros *int64 `json:"cpu_us"`
	// MemoryPeakBytes is the highest memory the container's cgroup reached
	// (v1 memory.max_usage_in_bytes, v2 memory.peak), page cache and /tmp
	// included: the container's whole life, so the runner's own at rest
	// (a few MiB) is its floor. Under gVisor, whose cgroupfs keeps no
	// peak, it is the largest resident set of the program's process
	// (wait4's rusage), without /tmp or the processes it left behind, and
	// capped at the memory limit: gVisor's count of it includes pages it
	// mapped but never committed, and can pass a limit that held.
	MemoryPeakBytes *int64 `json:"memory_peak_bytes"`
}
