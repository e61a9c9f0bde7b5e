package isolation

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/spool"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// CheckerRun is how a checker graded one test: its exit code (nil when
// it did not exit: a signal or a limit stopped it), its message (the
// head of its stderr, at most limits.MaxCheckerMessage bytes, where
// testlib writes its verdict's words), its wall-clock time and usage,
// and why it failed where its exit is none of testlib's grades.
type CheckerRun struct {
	ExitCode *int            `json:"exit_code"`
	Message  string          `json:"message"`
	WallMS   int64           `json:"wall_ms"`
	Usage    Usage           `json:"usage"`
	Error    *protocol.Error `json:"error"`
}

// CheckerPass is the checker's own run, in a container of its own after
// the program's was gone: its run ID and image, its verdict (ok: it ran
// and graded, whatever the grades; else why it could not, and every test
// it was to grade is then a JudgeFailure), its language's compile step
// and its duration.
type CheckerPass struct {
	RunID      string          `json:"run_id"`
	Image      string          `json:"image"`
	Verdict    Verdict         `json:"verdict"`
	Error      *protocol.Error `json:"error"`
	Compile    *Step           `json:"compile"`
	DurationMS int64           `json:"duration_ms"`
}

// runChecked runs a judge's request with its checker c: the program
// first, its tests compared by nothing (protocol.RoleChecked), each test
// that exited 0 within its limits sending its whole stdout back as an
// output frame, kept on the host (spool); then, once the program's
// container is gone, the checker in a container of its own
// (protocol.RoleCheck), on each such test's input, output and expected
// output, under its own bounds (checkerOptions). The checker's exits
// grade those tests (grade).
func runChecked(ctx context.Context, req Request, c *protocol.Checker, p checkedRun) (Result, error) {
	if err := checkChecker(req, c); err != nil {
		a := &attempt{start: p.start}
		return a.result(err), err
	}
	outputs, err := spool.New()
	if err != nil {
		a := &attempt{start: p.start}
		err = &Error{Verdict: protocol.EngineFailure, Err: err}
		return a.result(err), err
	}
	defer outputs.Remove()
	a := &attempt{start: p.start, tests: testNames(req), outputs: outputs}
	err = p.program(a, protocol.ProgramFrame(req))
	res := a.result(err)
	if err != nil || res.Tests == nil {
		return res, err
	}
	overBound(res.Tests, outputs)
	check, graded := checkRequest(c, req.Tests, res.Tests, outputs)
	if len(graded) == 0 {
		retake(&res)
		return res, nil
	}
	ca := &attempt{start: time.Now(), tests: testNames(check.Request), data: checkData(check.Tests, graded, outputs)}
	cerr := ca.run(ctx, check, checkerOptions(p.options, c.Image, len(graded)), p.in)
	cres := ca.result(cerr)
	res.Checker = &CheckerPass{RunID: cres.RunID, Image: cres.Image, Verdict: passVerdict(cres, len(graded)), Error: passError(cres, len(graded)),
		Compile: cres.Compile, DurationMS: cres.DurationMS}
	if cres.Verdict == protocol.Interrupted {
		// The caller stopped the run (a signal, a cancelled context) while
		// the checker ran: no test was graded, and that is no failure of
		// the checker's.
		res.Verdict, res.Error = protocol.Interrupted, cres.Error
		res.DurationMS = time.Since(a.start).Milliseconds()
		return res, cerr
	}
	grade(&res, graded, cres)
	res.DurationMS = time.Since(a.start).Milliseconds()
	return res, nil
}

// checkedRun is how a graded request's program runs (runGraded): on a,
// its frame prog, in a fresh container (Run) or a warm one (Pool.Run),
// from start; and where its grader runs: options' engine and runtime,
// in's plan input.
type checkedRun struct {
	program func(a *attempt, prog protocol.Frame) error
	start   time.Time
	options Options
	in      planInput
}

// runGraded runs a request its Grader grades: the one place the host
// tells a checker from an interactor.
func runGraded(ctx context.Context, req Request, p checkedRun) (Result, error) {
	switch g := req.Grader.(type) {
	case *protocol.Checker:
		if g != nil {
			return runChecked(ctx, req, g, p)
		}
	case *protocol.Interactor:
		if g != nil {
			return runInteractive(ctx, req, g, p)
		}
	}
	err := &Error{Verdict: protocol.Rejected, Err: fmt.Errorf("grader: a nil %T", req.Grader)}
	a := &attempt{start: p.start}
	return a.result(err), err
}

// checkChecker refuses a checker that could never run: no source, a
// source out of the request's rules, an image that is no sha256 ID; and
// a request it could not grade: no tests, or a compare mode beside it.
func checkChecker(req Request, c *protocol.Checker) error {
	reject := rejecter("checker")
	switch {
	case req.Tests == nil:
		return reject("a checker grades tests, and there are none")
	case req.Compare != "":
		return reject("compare %q: with a checker, the checker compares", req.Compare)
	}
	return checkGrader(reject, c.Source, c.Image)
}

// rejecter is a refusal of the request's what (its checker, its
// interactor), named.
func rejecter(what string) func(format string, args ...any) error {
	return func(format string, args ...any) error {
		return &Error{Verdict: protocol.Rejected, Err: fmt.Errorf(what+": "+format, args...)}
	}
}

// checkGrader refuses a checker's or an interactor's program that could
// never run, by reject: no source, a source out of the request's rules,
// an image that is no sha256 ID.
func checkGrader(reject func(format string, args ...any) error, source, image string) error {
	if strings.TrimSpace(source) == "" {
		return reject("no source")
	}
	if err := protocol.CheckRequest(Request{Source: source}, false); err != nil {
		return reject("%v", err)
	}
	if err := limits.CheckImageID(image); err != nil {
		return reject("image: %v", err)
	}
	return nil
}

// checkerOptions are the checker's run: o's engine and runtime, its
// image, and the checker's own bounds: limits.CheckerMemory, each test's
// limits.CheckerTimeout of wall-clock and CPU time, and a deadline for
// its compile step and all n tests, within limits.MaxTimeout.
func checkerOptions(o Options, image string, n int) Options {
	timeout := limits.CompileTimeout + time.Duration(n)*(limits.CheckerTimeout+time.Second) + 5*time.Second
	return Options{Engine: o.Engine, Runtime: o.Runtime, Image: image, Limits: limits.Config{
		Memory: limits.CheckerMemory, Timeout: min(timeout, limits.MaxTimeout),
		TestTimeout: limits.CheckerTimeout, CPUTime: limits.CheckerTimeout,
	}}
}

// checkRequest is the frame of the checker c's run: its source, and a
// test for each of the program's tests that sent its output (graded,
// their indexes), with the test's input, expected output (empty without
// one) and the output's size.
func checkRequest(c *protocol.Checker, tests []Test, results []TestResult, outputs *spool.Spool) (protocol.Frame, []int) {
	var check []Test
	var graded []int
	for i, t := range tests {
		n, ok := outputs.Size(i)
		if !ok || results[i].Verdict != protocol.OK {
			continue
		}
		check = append(check, Test{Name: t.Name, Stdin: t.Stdin, Expect: t.Expect, OutputBytes: &n})
		graded = append(graded, i)
	}
	return protocol.GraderFrame(c, check), graded
}

// checkData writes a check's data, test by test as the runner reads it:
// the input, the expected output, then the program's output from the
// spool.
func checkData(tests []Test, graded []int, outputs *spool.Spool) func(io.Writer) error {
	return func(w io.Writer) error {
		for k, t := range tests {
			if _, err := w.Write(t.Stdin); err != nil {
				return err
			}
			if _, err := w.Write(t.Expect); err != nil {
				return err
			}
			if err := outputs.CopyTo(w, graded[k]); err != nil {
				return err
			}
		}
		return nil
	}
}

// framesAgree holds a checked request's response to its output frames:
// a test sent one exactly when it exited 0 within its limits, of the
// size its result says.
func framesAgree(tests []protocol.TestResult, outputs *spool.Spool) error {
	for i, t := range tests {
		n, sent := outputs.Size(i)
		switch {
		case sent != (t.CheckedBytes != nil):
			return fmt.Errorf("response: test %q: an output frame (%t) disagrees with its result", t.Name, sent)
		case sent != (t.Verdict == protocol.TestOK && t.Error == nil):
			return fmt.Errorf("response: test %q: an output frame for a test that is %s", t.Name, t.Verdict)
		case sent && n != *t.CheckedBytes:
			return fmt.Errorf("response: test %q: an output frame of %d bytes, its result says %d", t.Name, n, *t.CheckedBytes)
		}
	}
	return nil
}
