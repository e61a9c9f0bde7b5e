package isolation

import (
	"fmt"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// Step is a process of a judge's request, the compile step or a test, as
// a Result gives it: its output and stderr (shared out as Result.Output's
// bound, head and tail), how it ended, its wall-clock time and usage
// (CPU time on the container's cgroup from its start to the end of all
// it started; the memory peak of its process tree, wait4's maximum
// resident set, capped at the memory limit).
type Step struct {
	protocol.Streams
	Exit   *protocol.Exit  `json:"-"`
	Error  *protocol.Error `json:"error"`
	WallMS int64           `json:"wall_ms"`
	Usage  Usage           `json:"usage"`
}

// TestResult is one test's result.
type TestResult struct {
	Name string `json:"name"`
	// Verdict is the test's: OK, WrongAnswer, ProgramError, Timeout,
	// CPUTimeout or OOM from its run; with a grader also Points,
	// PresentationError or JudgeFailure.
	Verdict Verdict `json:"verdict"`
	// Match is whether its stdout matched the expected output; nil when
	// it has none or did not exit 0.
	Match *bool `json:"match"`
	// Line is the first line of stdout that differs (Match false), else 0.
	Line int64 `json:"line"`
	// OutputDropped: it matched, and its output and stderr were left out
	// so the tests that did not match could keep theirs (counts kept).
	OutputDropped bool `json:"output_dropped"`
	// NotRun: the request's timeout was spent before its turn (Timeout).
	NotRun bool `json:"not_run"`
	// Stopped: an interactive test's program was stopped at the
	// interactor's end, not at a limit of its own; the interactor graded
	// it.
	Stopped bool `json:"stopped,omitempty"`
	// TimeLimitMS and CPUTimeLimitMS are the limits it ran under (0: no
	// CPU-time limit, or not run): limits.Config.TestTimeout and CPUTime
	// times the image's time factor, or its share of the time left.
	TimeLimitMS    int64 `json:"time_limit_ms"`
	CPUTimeLimitMS int64 `json:"cpu_time_limit_ms"`
	// CheckedBytes is how much of its stdout the checker was given: the
	// whole, up to limits.MaxCheckedOutput; nil where no checker graded it.
	CheckedBytes *int64 `json:"checked_bytes,omitempty"`
	// Checker is how the request's checker graded the test; nil without
	// a checker, and for a test it did not grade (the program did not
	// exit 0 within its limits: its verdict stands).
	Checker *CheckerRun `json:"checker,omitempty"`
	// Interactor is how the request's interactor talked with the
	// program in the test and graded it; nil without an interactor.
	Interactor *InteractorRun `json:"interactor,omitempty"`
	// Points is the score the checker gave (Points, its exit 7).
	Points *float64 `json:"points,omitempty"`
	Step
}

// worst is a judge's request's verdict from its tests: the most serious
// test's (protocol.Severity), OK for none.
func worst(tests []TestResult) Verdict {
	v := protocol.OK
	for _, t := range tests {
		if protocol.Severity(t.Verdict) > protocol.Severity(v) {
			v = t.Verdict
		}
	}
	return v
}

// judgement is what a response says of a judge's request, or of a
// compiled program run once: the compile step, and, for a judge's
// request, its verdict and its tests' results.
type judgement struct {
	verdict Verdict // "" for a program compiled and run once: the run's verdict is the program's
	compile *Step
	tests   []TestResult
}

// judgement reads resp as a judge's response (a compile error, or tests),
// each usage bounded as the run's is, and reports whether it was one
// (judged). A compiled program run once is no judge's, but has its
// compile step.
func (a *attempt) judgement(resp protocol.Response) (j judgement, judged bool, err error) {
	if resp.Error != nil && resp.Error.Type == protocol.ErrCompile {
		j, err = a.steps(resp, protocol.CompileError)
		return j, true, err
	}
	if resp.Tests == nil {
		if a.tests != nil {
			why := ""
			if resp.Error != nil { // the runner's own account of why it ran none
				why = fmt.Sprintf(" (its error: %s: %.200s)", resp.Error.Type, resp.Error.Message)
			}
			return j, true, &Error{Verdict: protocol.SandboxFailure, Err: fmt.Errorf("response: no tests, for a request of %d%s", len(a.tests), why)}
		}
		if resp.Compile == nil {
			return j, false, nil
		}
		// Compiled, then run once: the run's verdict is the program's.
		j, err = a.steps(resp, "")
		return j, err != nil, err
	}
	if len(resp.Tests) != len(a.tests) {
		return j, true, &Error{Verdict: protocol.SandboxFailure, Err: fmt.Errorf("response: %d tests, for a request of %d", len(resp.Tests), len(a.tests))}
	}
	for i, t := range resp.Tests {
		if t.Name != a.tests[i] {
			return j, true, &Error{Verdict: protocol.SandboxFailure, Err: fmt.Errorf("response: test %d is %q, the request's is %q", i+1, t.Name, a.tests[i])}
		}
	}
	if j, err = a.steps(resp, ""); err == nil {
		j.verdict = worst(j.tests)
	}
	return j, true, err
}

// steps converts the response's steps, bounding each usage.
func (a *attempt) steps(resp protocol.Response, verdict Verdict) (judgement, error) {
	j := judgement{verdict: verdict}
	if resp.Compile != nil {
		st, err := a.step(*resp.Compile)
		if err != nil {
			return judgement{}, err
		}
		j.compile = &st
	}
	for _, t := range resp.Tests {
		st, err := a.step(t.Step)
		if err != nil {
			return judgement{}, err
		}
		j.tests = append(j.tests, TestResult{Name: t.Name, Verdict: Verdict(t.Verdict), Match: t.Match, Line: t.Line,
			OutputDropped: t.Dropped, NotRun: t.NotRun, Stopped: t.Stopped, TimeLimitMS: t.TimeLimitMS, CPUTimeLimitMS: t.CPUTimeLimitMS, CheckedBytes: t.CheckedBytes, Step: st})
	}
	return j, nil
}

// step is s as a Result gives it, its usage bounded (bound) and its wall
// time no longer than the host saw the request take.
func (a *attempt) step(s protocol.Step) (Step, error) {
	u, err := a.bound(s.Usage)
	if err != nil {
		return Step{}, &Error{Verdict: protocol.SandboxFailure, Err: err}
	}
	wall := time.Duration(s.WallMicros) * time.Microsecond
	if window := max(a.responded.Sub(a.sent), 0); wall > window {
		return Step{}, &Error{Verdict: protocol.SandboxFailure, Err: fmt.Errorf("response: a step of %s in a request of %s", wall, window)}
	}
	st := Step{
		Streams: s.Streams,
		Exit:    s.Exit, Error: s.Error, WallMS: wall.Milliseconds(),
	}
	if u != nil {
		st.Usage = *u
	}
	return st, nil
}

// judgedError is a judged request's error: the compile step's, or the
// first test whose verdict is the request's, named.
func (j *judgement) judgedError(resp *protocol.Response) *protocol.Error {
	if j.verdict == protocol.CompileError {
		return &protocol.Error{Type: string(protocol.CompileError), Message: resp.Error.Message}
	}
	for _, t := range j.tests {
		if t.Verdict != j.verdict || t.Verdict == protocol.OK {
			continue
		}
		msg := fmt.Sprintf("its stdout differs from the expected output at line %d", t.Line)
		switch {
		case t.Checker != nil:
			msg = t.Checker.says("the checker", t.Verdict)
		case t.Interactor != nil && (t.Interactor.Graded || t.Verdict == protocol.JudgeFailure):
			msg = t.Interactor.says("the interactor", t.Verdict)
		case t.Error != nil:
			msg = t.Error.Message
		}
		return &protocol.Error{Type: string(t.Verdict), Message: fmt.Sprintf("test %q: %s", t.Name, msg)}
	}
	return nil
}

// judgedDeadline is when the host stops a request sent now: deadline,
// the plan's; for a request with tests, the runner's own deadline (the
// timeout, from the request) and judgeGrace. The runner spends the time
// up to its deadline on the tests, each stopped at its own limit, and
// answers for all of them: a host deadline counted from before the
// container started would cut a last test short, and with it every
// test's result. The runner still stops itself at its deadline.
func judgedDeadline(req Request, deadline time.Time, timeout time.Duration) time.Time {
	if req.Tests == nil {
		return deadline
	}
	return time.Now().Add(timeout + judgeGrace)
}

// checkSourceName refuses a file named as the source's own file of the
// image's language (name; "" for an interpreter, whose source file is
// protocol.ProgramName, which the file rules refuse already).
func checkSourceName(in Request, name string) error {
	_, text := in.Files[name]
	_, binary := in.Binary[name]
	if name != "" && (text || binary) {
		return &Error{Verdict: protocol.Rejected, Err: fmt.Errorf("file %q: the name of the source's own file in this image's language", name)}
	}
	return nil
}

// cfsPeriod is the CFS period docker sets with --cpus: within one period
// the quota may be spent on every core at once, so over a window the CPU
// time can exceed the quota's share of it by one period's quota.
const cfsPeriod = limits.CFSPeriodMicros * time.Microsecond

// peakSlack is how far a cgroup's memory peak may read past its limit:
// cgroup v1 charges in batches and was seen here 4096 bytes over a 64m
// limit (67112960 bytes) at an OOM.
const peakSlack = 4 << 20

// bound takes the runner's usage if it is possible: CPU time within what
// the quota allows over the time the host measured from sending the
// request to the response's arrival, memory within the limit (and peakSlack). Anything
// more is a hostile or broken runner's claim.
func (a *attempt) bound(u *protocol.Usage) (*Usage, error) {
	if u == nil {
		return nil, nil
	}
	var out Usage
	if u.CPUMicros != nil {
		window := max(a.responded.Sub(a.sent), 0)
		most := (window + cfsPeriod) * limits.CPUs
		cpu := time.Duration(*u.CPUMicros) * time.Microsecond
		switch {
		case cpu <= most:
		case a.plan.Column == limits.Runsc:
			// gVisor's cpuacct is its sentry's own account, which counts
			// more than the host's for several busy tasks (seen here: 11.85
			// s claimed in 8.14 s while the host's counter for the sandbox
			// read 1.00 CPU-s a second). The quota is the host's: no more
			// can have been used, so the claim is cut to it.
			cpu = most
		default:
			return nil, fmt.Errorf("response: claims %s of CPU time in %s, more than %d CPU allows",
				cpu.Round(time.Millisecond), window.Round(time.Millisecond), limits.CPUs)
		}
		ms := cpu.Milliseconds()
		out.CPUMS = &ms
	}
	if p := u.MemoryPeakBytes; p != nil {
		if *p > int64(a.plan.Limits.Memory)+peakSlack {
			return nil, fmt.Errorf("response: claims a memory peak of %d bytes, over the %s limit", *p, a.plan.Limits.Memory)
		}
		out.MemoryPeakBytes = p
	}
	return &out, nil
}
