package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"time"

	"golang.org/x/sys/unix"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/capture"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/runargs"
)

// minTestKeep is the least a test's stream keeps of its head and of its
// tail while it runs, however many tests share the bound.
const minTestKeep = 1 << 10

// testRun is a test as it ran, kept until the output is shared out.
type testRun struct {
	result         protocol.TestResult
	stdout, stderr *capture.Stream
}

// runTests runs the program (spec, built) once per test, in order, as
// the request's mode m says, and judges each (verdictOf); a failure of
// the runner's own (an image without its command, a test's stdin it
// could not make) is the response to give instead. A later test runs
// whatever an earlier one did. Each test's stdout and stderr keep
// budget/n of their head and of their tail (at least minTestKeep) while
// it runs, so the runner holds at most 4 budget (and 4 KiB a test),
// whatever the tests write, and a test can keep up to twice its equal
// share when others need less; once all ran, shareOutput fits them
// within budget.
func runTests(ctx context.Context, cfg runargs.Args, tests []protocol.Test, g *guard, spec startSpec, budget int, m mode) ([]protocol.TestResult, *protocol.Response) {
	n := len(tests)
	spec.keep = max(budget/n, minTestKeep)
	runs := make([]testRun, n)
	for i := range tests {
		t, run := &tests[i], &runs[i]
		run.result.Name = t.Name
		p, failed := m.prepare(i, t, spec)
		if failed == nil {
			failed = runTest(ctx, cfg, g, m, p, i, n-i, run)
			p.release()
		}
		if failed != nil {
			return nil, failed
		}
		run.result.Verdict = verdictOf(run.result)
		t.Stdin, t.Expect = nil, nil // the runner need not keep them
	}
	return shareOutput(runs, budget), nil
}

// runTest runs test i, made ready as p, into run, tests the tests still
// to run, itself included: under its limits (testLimits), unless it is
// not to run (p.skip, or the request's deadline came), in which case the
// result says why and has no limits. A failure of the runner's own is
// the response to give instead.
func runTest(ctx context.Context, cfg runargs.Args, g *guard, m mode, p prepared, i, tests int, run *testRun) *protocol.Response {
	left := time.Until(deadlineOf(ctx))
	if p.skip == nil && left <= 0 {
		p.skip, p.notRun = deadlinePassed(cfg, m), true
	}
	if p.skip != nil {
		run.result.Error, run.result.NotRun = p.skip, p.notRun
		return nil
	}
	wall, cpu := testLimits(cfg, left, tests, m.grader() != "")
	run.result.TimeLimitMS, run.result.CPUTimeLimitMS = wall.Milliseconds(), cpu.Milliseconds()
	s, err := m.run(ctx, g, p.spec, i, wall, cpu)
	switch {
	case s.failed != nil:
		return s.failed
	case err != nil:
		run.result.TimeLimitMS, run.result.CPUTimeLimitMS = 0, 0
		run.result.Error, run.result.NotRun = &protocol.Error{Type: protocol.ErrInternal, Message: "not run: " + err.Error()}, true
		if ctx.Err() != nil { // it waited for the other side until the deadline
			run.result.Error = deadlinePassed(cfg, m)
		}
		return nil
	}
	run.stdout, run.stderr = s.stdout, s.stderr
	run.result.Step = s.step(2 * p.spec.keep)
	return m.took(i, &run.result, s)
}

// deadlinePassed is the error of a test the request's deadline came
// before: a timeout, not the test's.
func deadlinePassed(cfg runargs.Args, m mode) *protocol.Error {
	whose := "the request's"
	if m.grader() != "" {
		whose = m.grader() + "'s"
	}
	return &protocol.Error{Type: protocol.ErrTimeout, Message: fmt.Sprintf("not run: %s deadline of %s came first", whose, cfg.Timeout)}
}

// testLimits are a test's wall-clock and CPU-time limits, left the time
// left and tests the tests still to run: --test-timeout (else a fair
// share of the time left) and --cpu-time, each times the language's time
// factor unless they are a grader's own, the wall-clock limit never past
// the time left.
func testLimits(cfg runargs.Args, left time.Duration, tests int, grader bool) (wall, cpu time.Duration) {
	factor := max(cfg.TimeFactor, 1)
	if grader {
		factor = 1
	}
	scale := func(d time.Duration) time.Duration { return time.Duration(float64(d) * factor) }
	wall = left / time.Duration(tests)
	if cfg.TestTimeout > 0 {
		wall = min(scale(cfg.TestTimeout), left)
	}
	return wall, scale(cfg.CPUTime)
}

// verdictOf is a test's verdict, decided once it ran or did not, from its
// result: its error (how its process failed: a limit, a signal, an exit;
// or why it did not run: the request's deadline, a timeout; the other
// side's end, or a failure before it started), then its comparison
// (Match false: a wrong answer).
func verdictOf(r protocol.TestResult) string {
	if r.Error != nil {
		switch r.Error.Type {
		case protocol.ErrOOM:
			return protocol.TestOOM
		case protocol.ErrTimeout:
			return protocol.TestTimeout
		case protocol.ErrCPUTime:
			return protocol.TestCPUTimeout
		}
		return protocol.TestProgramError
	}
	if r.Match != nil && !*r.Match {
		return protocol.TestWrongAnswer
	}
	return protocol.TestOK
}

// shareOutput fits the tests' output and stderr within budget: every test
// whole (as far as its streams kept it) if all fit; else the tests that
// matched their expected output give theirs up (Dropped, the counts
// kept) and the others share budget fairly (fairShares), each test's
// share split between its stdout and stderr as a response's is
// (capture.Shares), head and tail kept.
func shareOutput(runs []testRun, budget int) []protocol.TestResult {
	want := make([]int, len(runs))
	total := 0
	for i, r := range runs {
		if r.stdout != nil {
			want[i] = len(r.result.Output) + len(r.result.Stderr)
		}
		total += want[i]
	}
	drop := total > budget
	if drop {
		for i, r := range runs {
			if r.result.Match != nil && *r.result.Match {
				want[i] = 0
			}
		}
	}
	shares := fairShares(want, budget)
	out := make([]protocol.TestResult, len(runs))
	for i, r := range runs {
		out[i] = r.result
		if r.stdout == nil {
			continue
		}
		if drop && r.result.Match != nil && *r.result.Match {
			o := &out[i]
			o.Dropped = true
			o.Output, o.Stderr, o.OutputReplaced, o.StderrReplaced = "", "", 0, 0
			o.OutputTruncated, o.StderrTruncated = o.OutputBytes > 0, o.StderrBytes > 0
			continue
		}
		if shares[i] < want[i] {
			so, se := capture.Keep(shares[i], r.stdout, r.stderr)
			setStep(&out[i].Step, so, se)
		}
	}
	return out
}

// fairShares divides budget among wants, max-min fairly: a want within an
// equal share of what is left gets all of it, and the rest share the
// remainder equally, so the sum of the shares is at most budget and no
// share exceeds its want.
func fairShares(wants []int, budget int) []int {
	order := make([]int, len(wants))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return wants[order[a]] < wants[order[b]] })
	shares := make([]int, len(wants))
	left := budget
	for k, i := range order {
		shares[i] = min(wants[i], left/(len(order)-k))
		left -= shares[i]
	}
	return shares
}

// memfdWith is a memfd holding b, at its start: a test's stdin, seekable
// as a file is, but not in /tmp, so an earlier test that filled /tmp
// cannot make a later one's stdin fail (that would read as the sandbox's
// failure, not the program's). Not executable, never: MFD_NOEXEC_SEAL
// where the kernel knows it.
func memfdWith(b []byte) (*os.File, error) {
	fd, err := unix.MemfdCreate("stdin", unix.MFD_CLOEXEC|unix.MFD_NOEXEC_SEAL)
	if errors.Is(err, unix.EINVAL) { // before Linux 6.3
		fd, err = unix.MemfdCreate("stdin", unix.MFD_CLOEXEC)
	}
	if err != nil {
		return nil, fmt.Errorf("memfd_create: %w", err)
	}
	return holding(os.NewFile(uintptr(fd), "stdin"), b)
}

// unlinkedFile is a file in /tmp holding b, unlinked once open, at its
// start: the request's stdin (prepare), written before any program ran.
func unlinkedFile(b []byte) (*os.File, error) {
	f, err := os.CreateTemp(os.TempDir(), ".stdin-")
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	return holding(f, b)
}

// holding is f with b written to it, at its start; f is closed if that
// fails.
func holding(f *os.File, b []byte) (*os.File, error) {
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(0, 0); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
