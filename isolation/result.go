package isolation

import (
	"encoding/json"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/supervisor"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// Result is the outcome of one run.
type Result struct {
	Verdict Verdict
	// Result, ResultType and ResultRepr are the program's value (see
	// protocol.Response); Result is nil when there is none.
	Result     json.RawMessage
	ResultType string
	ResultRepr bool
	// Streams are the program's captured standard output (Starlark: its
	// print()) and standard error (exec mode); both are discarded unless
	// the verdict is ok or program_error.
	protocol.Streams
	// Files are the files the request's Collect matched in the program's
	// working directory, by name: each whole (protocol.File's Data) or
	// why not (its Error). Nil when none were asked for or the verdict is not
	// ok or program_error; empty when none matched.
	Files map[string]protocol.File
	// Compile is the compile step of an image's language that has one;
	// nil without.
	Compile *Step
	// Checker is the run of a judge's request's checker (Request.Grader),
	// which graded Tests; nil without one, or when the program's run gave
	// it nothing to grade.
	Checker *CheckerPass
	// Interactor is the run of a judge's request's interactor
	// (Request.Grader), which talked with the program and graded
	// Tests; nil without one.
	Interactor *CheckerPass
	// Tests are a judge's request's results, in its order; nil without
	// tests. Its Verdict is then its most serious test's (in the order of
	// protocol.Verdicts), or CompileError, and Error names the first test
	// of that verdict.
	Tests []TestResult
	// Error is the program's error or the reason the run failed.
	Error *protocol.Error
	// Exec is the exit of an exec-mode command.
	Exec *protocol.Exit
	// ContainerExit is the exit status of `docker run`, when it exited.
	ContainerExit *int
	// RunID, Container and Image identify the run and its container; empty
	// when no container was planned (in-process eval, a rejected run).
	RunID     string
	Container string
	Image     string
	// Interpreter is what the program ran under: "starlark", or the
	// command line (Options.Exec or the image's declared one) joined by
	// spaces, like "python3 -"; empty when no program was planned (a
	// rejected run, a selfcheck).
	Interpreter string
	// Sandboxed is true exactly when the runner's hello was judged against
	// the plan and passed, so the request was sent into a proven sandbox:
	// false for in-process eval, for runs refused before docker started,
	// and for containers refused at their hello.
	Sandboxed  bool
	DurationMS int64
	// Timings splits a run's time; each is nil where it does not apply.
	Timings Timings
	// Usage is what the program used, as its runner answered; nil where
	// there was no such answer: no program ran, the host ended the
	// container (timeout), or the response was refused.
	Usage *Usage
}

// Usage is what a run's program used, as the runner measured it on its
// container's cgroup and the host bounded it. Each is null where it was
// not measured.
type Usage struct {
	// CPUMS is the CPU time, user plus system, of the program and every
	// process it started, from the request's arrival until all of them
	// were reaped, the runner's own share while it watched included (a few
	// ms per second of run). Never more than the CPU quota allows over
	// the time the host measured around the program.
	CPUMS *int64 `json:"cpu_ms"`
	// MemoryPeakBytes is the highest memory the container's cgroup
	// reached (cgroup v1 memory.max_usage_in_bytes, v2 memory.peak): page
	// cache and /tmp included, and the runner's own, a few MiB, which is
	// its floor. Never more than the memory limit and 4 MiB (cgroup v1
	// charges in batches and can read a few pages over).
	MemoryPeakBytes *int64 `json:"memory_peak_bytes"`
}

// Timings splits a run's time, in milliseconds unless named otherwise,
// each null where it does not apply. The phases follow the handshake: the
// container starts and says hello; the host judges the hello and sends the
// request; the runner runs the program and responds; the container goes.
type Timings struct {
	// WaitMS (batch) is from reading the request to giving it a warm
	// container, whose start and hello happened before the request.
	WaitMS *int64 `json:"wait_ms"`
	// StartMS is from starting docker run to the runner's hello arriving:
	// the container's creation and start and the runner's selfcheck. Null
	// for a warm container.
	StartMS *int64 `json:"start_ms"`
	// HandshakeUS is the runner's own time, in microseconds, from writing
	// its hello to reading the request: the host's judgement and the
	// request's way in.
	HandshakeUS *int64 `json:"handshake_us"`
	// ExecMS is the runner's own time from the request to its response.
	ExecMS *int64 `json:"exec_ms"`
	// CleanupMS is from the response (or the client's end, when there was
	// none) to the container gone: its exit, --rm, any removal. A pool's
	// line answered at its container's exit counts to the exit; the
	// removal is confirmed after it (Pool.Close waits for it).
	CleanupMS *int64 `json:"cleanup_ms"`
}

// result builds the attempt's Result once, from what it learned and the
// error that ended it.
func (a *attempt) result(err error) Result {
	// From the call to the return, cleanup included, whatever the verdict.
	returned := time.Now()
	res := Result{ContainerExit: a.exit, Sandboxed: a.sandboxed, DurationMS: returned.Sub(a.start).Milliseconds()}
	if a.plan != nil {
		res.Image, res.RunID, res.Interpreter = a.plan.Image, a.plan.RunID, interpreterOf(a.plan.Runner)
		if a.started {
			res.Container = a.plan.Name
		}
	}
	switch r := a.response; {
	case err != nil:
		res.Verdict = supervisor.VerdictOf(err)
		res.Error = &protocol.Error{Type: string(res.Verdict), Message: err.Error()}
	case r != nil:
		res.Verdict = protocol.OK
		if !r.OK {
			res.Verdict = protocol.ProgramError
		}
		res.Result, res.ResultType, res.ResultRepr = r.Result, r.ResultType, r.ResultRepr
		if string(res.Result) == "null" {
			res.Result = nil // none, as documented: the wire says null
		}
		res.Streams = r.Streams
		res.Error, res.Exec = r.Error, r.Exit
		res.Files = r.Files
		if a.collect && res.Files == nil {
			res.Files = map[string]protocol.File{} // asked for, and none matched
		}
		if j := a.judged; j != nil {
			res.Compile = j.compile
			if j.verdict != "" {
				res.Verdict, res.Error, res.Tests = j.verdict, j.judgedError(r), j.tests
			}
		}
	}
	res.Timings = a.timings(returned)
	res.Usage = a.usage
	return res
}

// timings splits the attempt's time; the runner's own times are its word,
// so each is bounded by what the host measured around it.
func (a *attempt) timings(returned time.Time) Timings {
	ms := func(d time.Duration) *int64 {
		v := max(d, 0).Milliseconds()
		return &v
	}
	var t Timings
	if !a.assigned.IsZero() {
		t.WaitMS = ms(a.assigned.Sub(a.start))
	} else if !a.hello.IsZero() {
		t.StartMS = ms(a.hello.Sub(a.launched))
	}
	if !a.responded.IsZero() && !a.sent.IsZero() {
		around := max(a.responded.Sub(a.sent), 0)
		exec := min(max(a.elapsed, 0), around)
		t.ExecMS = ms(exec)
		// The handshake began before the request was sent; bound it by
		// the hello's arrival where the host saw that, else by the wait.
		bound := around - exec
		if !a.hello.IsZero() {
			bound += a.sent.Sub(a.hello)
		} else if !a.assigned.IsZero() {
			bound += a.assigned.Sub(a.start)
		}
		hs := min(max(a.handshook, 0), max(bound, 0)).Microseconds()
		if a.handshook > 0 && hs == 0 {
			hs = 1
		}
		t.HandshakeUS = &hs
		t.CleanupMS = ms(returned.Sub(a.responded))
	} else if !a.end.IsZero() {
		t.CleanupMS = ms(returned.Sub(a.end))
	}
	return t
}

// Verdict is the one outcome of a run: protocol.Verdict, whose constants
// (protocol.OK, protocol.Timeout, ...) sit beside the one table of
// verdicts, protocol.Verdicts, that holds each one's facts.
type Verdict = protocol.Verdict

// Error is every failure this package returns: its field Verdict (a
// protocol.Verdict) is the verdict it stands for, the same as the Result's,
// and Err its cause. errors.As finds it; its message is the verdict's
// prefix (its row of protocol.Verdicts) and then the cause's; Unwrap
// returns the cause. Run's error is nil exactly for ok and program_error,
// and for a judged request, whose verdict is its tests'.
type Error = supervisor.Error
