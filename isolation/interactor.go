package isolation

import (
	"context"
	"sync"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/relay"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// InteractorRun is how the interactor talked with the program in one
// test and graded it: a checker's account of its run (CheckerRun), and
// what it wrote to the program, head and tail (the program's own words
// are the test's output). Graded: the interactor's run of the test
// decided it (its exit, or its failure: a judge's failure). EndedFirst
// is the side whose end the host relayed first, "program" or
// "interactor" ("": it saw neither end): an interactor that ended
// first with any grade but OK decides the test, whatever the program did
// after.
type InteractorRun struct {
	CheckerRun
	Output          string `json:"output"`
	OutputBytes     int64  `json:"output_bytes"`
	OutputTruncated bool   `json:"output_truncated"`
	Graded          bool   `json:"graded"`
	EndedFirst      string `json:"ended_first,omitempty"`
}

// runInteractive runs a judge's request with an interactor: the program
// and the interactor at once, each in a container of its own (the
// interactor is trusted, the program is not: they share no process or
// file, and the test's files are in the interactor's alone), the host
// relaying each one's stdout to the other's stdin, test
// by test (package relay), what the program sends bounded. Each test's verdict
// is then decided by interactive, on who ended it first.
func runInteractive(ctx context.Context, req Request, g *protocol.Interactor, p checkedRun) (Result, error) {
	if err := checkInteractor(req, g); err != nil {
		a := &attempt{start: p.start}
		return a.result(err), err
	}
	n := len(req.Tests)
	rl := relay.New(n)
	// The program's tests carry their names alone; their data is the
	// interactor's (protocol.ProgramFrame, GraderFrame).
	prog, inter := protocol.ProgramFrame(req), protocol.GraderFrame(g, req.Tests)
	a := &attempt{start: p.start, tests: testNames(req), live: rl.Side(relay.Program)}
	ia := &attempt{start: time.Now(), tests: testNames(req), live: rl.Side(relay.Interactor)}
	var wg sync.WaitGroup
	var ierr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer rl.Gone(relay.Interactor)
		ierr = ia.run(ctx, inter, interactorOptions(p.options, g.Image, n), p.in)
	}()
	err := func() error {
		defer rl.Gone(relay.Program)
		return p.program(a, prog)
	}()
	wg.Wait()
	res := a.result(err)
	ires := ia.result(ierr)
	res.Interactor = &CheckerPass{RunID: ires.RunID, Image: ires.Image, Verdict: passVerdict(ires, n), Error: passError(ires, n),
		Compile: ires.Compile, DurationMS: ires.DurationMS}
	if err != nil || res.Tests == nil {
		return res, err
	}
	if err := rl.Broken(); err != nil {
		err = &Error{Verdict: protocol.SandboxFailure, Err: err}
		a := &attempt{start: p.start, plan: a.plan, sandboxed: a.sandboxed}
		r := a.result(err)
		r.Interactor = res.Interactor
		return r, err
	}
	interactive(&res, ires, rl.Ends())
	res.DurationMS = time.Since(a.start).Milliseconds()
	return res, nil
}

// checkInteractor refuses an interactor that could never run, as
// checkChecker does a checker.
func checkInteractor(req Request, g *protocol.Interactor) error {
	reject := rejecter("interactor")
	switch {
	case req.Tests == nil:
		return reject("an interactor grades tests, and there are none")
	case req.Compare != "":
		return reject("compare %q: with an interactor, the interactor grades", req.Compare)
	}
	return checkGrader(reject, g.Source, g.Image)
}

// interactorOptions are the interactor's run: o's engine and runtime, its
// image, and its own bounds: limits.CheckerMemory; each test's
// limits.CheckerTimeout of CPU time, and of wall-clock time the
// program's whole timeout and that (it waits on the program); a deadline
// for its compile step and all n tests, within limits.MaxTimeout.
func interactorOptions(o Options, image string, n int) Options {
	timeout := o.Limits.Timeout
	if timeout == 0 {
		timeout = limits.DefaultTimeout // the program's, as its plan takes it
	}
	wall := timeout + limits.CheckerTimeout
	timeout = limits.CompileTimeout + time.Duration(n)*(wall+time.Second) + 5*time.Second
	return Options{Engine: o.Engine, Runtime: o.Runtime, Image: image, Limits: limits.Config{
		Memory: limits.CheckerMemory, Timeout: min(timeout, limits.MaxTimeout),
		TestTimeout: min(wall, limits.MaxTimeout), CPUTime: limits.CheckerTimeout,
	}}
}
