package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/runargs"
)

// errInteractorEnded stops a program at an =end: its interactor ended
// first, or the host ended its test at the bound of what it may send
// (the host then judges it).
var errInteractorEnded = errors.New("the interactor's end")

// interaction runs an interactive request's tests, or an interactor's,
// one at a time in step with the other side (the host's live frames,
// in): each test waits for its =go, its process's stdin is the other
// side's stdout and its stdout goes to the other side, and its =done is
// sent once everything it started is gone. A test the host's stream
// ended before (the other side is gone) is not run.
type interaction struct {
	r  *responder
	in *liveIn
	// stop: an =end stops the test (the program's side); else it only
	// ends the test's stdin (the interactor's, which then decides).
	stop bool
}

// test runs test i: spec with a live stdin and stdout, under wall and
// cpu. ran is false when the test never got its =go.
func (x interaction) test(ctx context.Context, g *guard, spec startSpec, i int, wall, cpu time.Duration) (r stepRun, ran bool, err error) {
	if err := x.r.live(protocol.LiveReady, i, nil); err != nil {
		return r, false, err
	}
	pr, err := x.in.await(ctx, i)
	if pr == nil {
		return r, false, err
	}
	defer pr.Close() // the start closed it, unless the start failed
	tctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	onEnd := x.in.clearLocked
	if x.stop {
		onEnd = func() { x.in.clearLocked(); cancel(errInteractorEnded) }
	}
	x.in.onEndOf(i, onEnd)
	spec.stdin, spec.letStdin, spec.tee = pr, true, liveOut{r: x.r, test: i}
	r = step(tctx, g, spec, wall, cpu)
	x.in.clear()
	if r.failed == nil {
		err = x.r.live(protocol.LiveDone, i, nil)
	}
	return r, true, err
}

// take puts how test run ended into it: its step s (each stream kept
// within keep), or, when it never ran (ran false), why: the request's
// deadline, or the other side (who) ending first, err its cause. It
// reports whether the test ran; after one that did not, none will.
func (x interaction) take(ctx context.Context, cfg runargs.Args, run *testRun, s stepRun, ran bool, err error, keep int, who string) bool {
	switch {
	case !ran && ctx.Err() != nil:
		deadlineNotRun(run, cfg)
		return false
	case !ran:
		notRun(run, who)
		if err != nil {
			run.result.Error.Message += ": " + err.Error()
		}
		return false
	}
	run.stdout, run.stderr = s.stdout, s.stderr
	run.result.Step = s.step(2 * keep)
	run.result.Verdict = verdictOf(run.result.Step, nil)
	run.result.Stopped = stoppedAtEnd(s) // only ever the program's: an interactor's =end ends its stdin alone
	return true
}

// deadlineNotRun marks a test the request's deadline came before: it
// waited for the other side (its =go) until then.
func deadlineNotRun(run *testRun, cfg runargs.Args) {
	run.result.Verdict, run.result.NotRun = protocol.TestTimeout, true
	run.result.TimeLimitMS, run.result.CPUTimeLimitMS = 0, 0
	run.result.Error = &protocol.Error{Type: protocol.ErrTimeout, Message: fmt.Sprintf("not run: the request's deadline of %s came first", cfg.Timeout)}
}

// notRun marks a test the other side's end left unrun.
func notRun(run *testRun, who string) {
	run.result.Verdict, run.result.NotRun = protocol.TestProgramError, true
	run.result.Error = &protocol.Error{Type: protocol.ErrInternal, Message: "not run: " + who + " ended before it"}
}

// interactiveTests runs an interactive request's program once per test
// (interaction, the =end stopping it), each test's limits as runTests
// gives them (testLimits); a failure to start the program is the
// response to give instead.
func interactiveTests(ctx context.Context, cfg runargs.Args, req protocol.Request, g *guard, spec startSpec, budget int, r *responder, data io.Reader) ([]protocol.TestResult, *protocol.Response) {
	n := len(req.Tests)
	spec.keep = max(budget/n, minTestKeep)
	runs := make([]testRun, n)
	x := interaction{r: r, in: readLive(data), stop: true}
	gone := false
	for i, t := range req.Tests {
		run := &runs[i]
		run.result.Name = t.Name
		if gone {
			notRun(run, "the interactor")
			continue
		}
		wall, cpu := testLimits(cfg, time.Until(deadlineOf(ctx)), n-i)
		run.result.TimeLimitMS, run.result.CPUTimeLimitMS = wall.Milliseconds(), cpu.Milliseconds()
		s, ran, err := x.test(ctx, g, spec, i, wall, cpu)
		if s.failed != nil {
			return nil, s.failed
		}
		gone = !x.take(ctx, cfg, run, s, ran, err, spec.keep, "the interactor")
	}
	return shareOutput(runs, budget), nil
}

// stoppedAtEnd reports whether the step was stopped at an =end, not at a
// limit of its own: at the interactor's end, the one stop that is never
// the program's failure (the host, which sent the =end, knows which).
func stoppedAtEnd(s stepRun) bool {
	return s.s.timedOut && errors.Is(s.s.timedOutBy, errInteractorEnded) && s.s.oom == "" && s.s.cpu == ""
}

// interactRun runs an interactor's request (protocol.RoleInteract):
// the interactor compiled once where its language compiles,
// then once per test as `interactor INPUT ANSWER`, two read-only files
// the runner writes from the test's data into a directory of their own,
// removed after; its stdin and stdout are the program's, through the
// host (interaction). Its limits are the request's --test-timeout and
// --cpu-time, which the host sets to the interactor's own.
func interactRun(ctx context.Context, cfg runargs.Args, req protocol.Request, data io.Reader, g *guard, r *responder) protocol.Response {
	b, end := build(ctx, cfg, req, g, "the interactor")
	defer b.close()
	if end != nil {
		return *end
	}
	resp, budget := b.resp, b.budget
	n := len(req.Tests)
	spec := startSpec{argv: b.argv, dir: b.w.dir, threads: cfg.Threads, program: b.prog, keep: max(budget/n, minTestKeep)}
	runs := make([]testRun, n)
	x := interaction{r: r, in: readLive(data)}
	gone := false
	for i, t := range req.Tests {
		run := &runs[i]
		run.result.Name = t.Name
		if gone {
			notRun(run, "the program")
			continue
		}
		dir, paths, err := interactorFiles(t)
		if err != nil {
			os.RemoveAll(dir)
			f := failure(protocol.ErrInternal, fmt.Sprintf("test %q: the interactor's files: %v", t.Name, err))
			return f
		}
		wall := min(cfg.TestTimeout, time.Until(deadlineOf(ctx)))
		run.result.TimeLimitMS, run.result.CPUTimeLimitMS = wall.Milliseconds(), cfg.CPUTime.Milliseconds()
		ts := spec
		ts.argv = append(spec.argv[:len(spec.argv):len(spec.argv)], paths[:]...)
		s, ran, err := x.test(ctx, g, ts, i, wall, cfg.CPUTime)
		os.RemoveAll(dir)
		if s.failed != nil {
			return *s.failed
		}
		gone = !x.take(ctx, cfg, run, s, ran, err, spec.keep, "the program")
	}
	resp.Tests, resp.OK = shareOutput(runs, budget), true
	resp.Usage = g.cpu.usage(nil)
	return resp
}

// interactorFiles writes test t's input and expected output (empty
// without one) to the files input and answer of a new directory,
// read-only, and returns their paths in that order.
func interactorFiles(t protocol.Test) (dir string, paths [2]string, err error) {
	dir, err = os.MkdirTemp(os.TempDir(), "interact-")
	if err != nil {
		return "", paths, err
	}
	paths = [2]string{filepath.Join(dir, "input"), filepath.Join(dir, "answer")}
	for k, b := range [][]byte{t.Stdin, t.Expect} {
		if err := os.WriteFile(paths[k], b, 0o400); err != nil {
			return dir, paths, err
		}
	}
	return dir, paths, nil
}
