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
)

// errInteractorEnded stops a program at an =end: its interactor ended
// first, or the host ended its test at the bound of what it may send
// (the host then judges it).
var errInteractorEnded = errors.New("the interactor's end")

// liveMode is an interactive request's (protocol.RoleInteractive: the
// program's) or an interactor's (protocol.RoleInteract): its tests run
// one at a time in step with the other side (the host's live frames,
// read from data): each test waits for its =go, its process's stdin is
// the other side's stdout and its stdout goes to the other side, and its
// =done is sent once everything it started is gone. Once the other side
// has ended (the host's stream ended or broke), no test runs. The
// interactor runs as `interactor INPUT ANSWER` (files), two read-only
// files the runner writes from the test's data into a directory of
// their own, removed after; its limits are the request's --test-timeout
// and --cpu-time, which the host sets to the interactor's own.
type liveMode struct {
	r     *responder
	data  io.Reader
	in    *liveIn // the live frames, read from the first test on
	other string  // the other side: "the interactor", "the program"
	// stop: an =end stops the test (the program's side); else it only
	// ends the test's stdin (the interactor's, which then decides).
	stop bool
	// files: the test's input and expected output are files on its
	// command line (the interactor's side).
	files bool
	gone  bool // the other side ended: no test runs
}

func (l *liveMode) grader() string {
	if l.files {
		return "the interactor"
	}
	return ""
}

func (l *liveMode) prepare(_ int, t *protocol.Test, spec startSpec) (prepared, *protocol.Response) {
	if l.in == nil {
		l.in = readLive(l.data)
	}
	p := prepared{spec: spec, release: func() {}}
	switch {
	case l.gone:
		p.skip, p.notRun = &protocol.Error{Type: protocol.ErrInternal, Message: "not run: " + l.other + " ended before it"}, true
	case l.files:
		dir, paths, err := interactorFiles(*t)
		p.release = func() { os.RemoveAll(dir) }
		if err != nil {
			p.release()
			f := failure(protocol.ErrInternal, fmt.Sprintf("test %q: the interactor's files: %v", t.Name, err))
			return prepared{}, &f
		}
		p.spec.argv = append(spec.argv[:len(spec.argv):len(spec.argv)], paths[:]...)
	}
	return p, nil
}

// run runs test i: spec with a live stdin and stdout, under wall and cpu,
// once its =go came. A test that never got it did not run: the other
// side ended first (and no test runs after it), or ctx did.
func (l *liveMode) run(ctx context.Context, g *guard, spec startSpec, i int, wall, cpu time.Duration) (stepRun, error) {
	r, ran, err := l.test(ctx, g, spec, i, wall, cpu)
	if ran || r.failed != nil {
		return r, nil
	}
	if ctx.Err() == nil {
		l.gone = true
	}
	if err != nil {
		return r, fmt.Errorf("%s ended before it: %w", l.other, err)
	}
	return r, errors.New(l.other + " ended before it")
}

// test runs test i: spec with a live stdin and stdout, under wall and
// cpu. ran is false when the test never got its =go.
func (l *liveMode) test(ctx context.Context, g *guard, spec startSpec, i int, wall, cpu time.Duration) (r stepRun, ran bool, err error) {
	if err := l.r.live(protocol.LiveReady, i, nil); err != nil {
		return r, false, err
	}
	pr, err := l.in.await(ctx, i)
	if pr == nil {
		return r, false, err
	}
	defer pr.Close() // the start closed it, unless the start failed
	tctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	onEnd := l.in.clearLocked
	if l.stop {
		onEnd = func() { l.in.clearLocked(); cancel(errInteractorEnded) }
	}
	l.in.onEndOf(i, onEnd)
	spec.stdin, spec.letStdin, spec.tee = pr, true, liveOut{r: l.r, test: i}
	r = step(tctx, g, spec, wall, cpu)
	l.in.clear()
	if r.failed == nil {
		err = l.r.live(protocol.LiveDone, i, nil)
	}
	return r, true, err
}

// took notes a test the runner stopped at an =end, not at a limit of its
// own (stoppedAtEnd): only ever the program's, since an interactor's
// =end ends its stdin alone.
func (l *liveMode) took(_ int, res *protocol.TestResult, s stepRun) *protocol.Response {
	res.Stopped = stoppedAtEnd(s)
	return nil
}

// stoppedAtEnd reports whether the step was stopped at an =end, not at a
// limit of its own: at the interactor's end, the one stop that is never
// the program's failure (the host, which sent the =end, knows which).
func stoppedAtEnd(s stepRun) bool {
	return s.s.timedOut && errors.Is(s.s.timedOutBy, errInteractorEnded) && s.s.oom == "" && s.s.cpu == ""
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
