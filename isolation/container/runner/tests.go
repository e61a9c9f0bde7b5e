package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"golang.org/x/sys/unix"

	expect "github.com/synapse-lang/synapse-isolation/isolation/container/runner/judge"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/capture"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/runargs"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// minTestKeep is the least a test's stream keeps of its head and of its
// tail while it runs, however many tests share the bound.
const minTestKeep = 1 << 10

// testRun is a test as it ran, kept until the output is shared out.
type testRun struct {
	result         protocol.TestResult
	stdout, stderr *capture.Stream
}

// runTests runs the program (spec) once per test of req, in order, and
// judges each; a failure to start the program at all (an image without
// its command) is the response to give instead. Each test's stdout and
// stderr keep budget/n of their head and of their tail (at least
// minTestKeep) while it runs, so the runner holds at most 4 budget (and
// 4 KiB a test), whatever the tests write, and a test can keep up to
// twice its equal share when others need less; once all ran, shareOutput
// fits them within budget.
//
// With out (a checked request), no test is compared: a test that exited
// 0 within its limits sends out its stdout (checkedOutput) once its
// processes are all gone.
func runTests(ctx context.Context, cfg runargs.Args, req protocol.Request, g *guard, spec startSpec, budget int, out framer) ([]protocol.TestResult, *protocol.Response) {
	n := len(req.Tests)
	spec.keep = max(budget/n, minTestKeep)
	runs := make([]testRun, n)
	var spool *checkedOutput
	if out != nil {
		spool = &checkedOutput{left: limits.MaxCheckedTotal}
	}
	for i := range req.Tests {
		t := &req.Tests[i]
		run := &runs[i]
		run.result.Name = t.Name
		left := time.Until(deadlineOf(ctx))
		if left <= 0 {
			run.result.Verdict, run.result.NotRun = protocol.TestTimeout, true
			run.result.Error = &protocol.Error{Type: protocol.ErrTimeout, Message: fmt.Sprintf("not run: the request's deadline of %s came first", cfg.Timeout)}
			continue
		}
		wall, cpu := testLimits(cfg, left, n-i)
		run.result.TimeLimitMS, run.result.CPUTimeLimitMS = wall.Milliseconds(), cpu.Milliseconds()
		stdin, err := memfdWith(t.Stdin)
		if err != nil {
			r := failure(protocol.ErrInternal, fmt.Sprintf("test %q: stdin: %v", t.Name, err))
			return nil, &r
		}
		t.Stdin = nil // in the file now; the runner need not keep it
		spec.stdin, spec.tee = stdin, nil
		var m matcher
		switch {
		case spool != nil:
			spool.begin()
			spec.tee = spool
		case t.Expect != nil:
			m = matcherFor(t.Expect, req.Compare)
			spec.tee = m
		}
		r := step(ctx, g, spec, wall, cpu)
		stdin.Close()
		if r.failed != nil {
			return nil, r.failed
		}
		run.stdout, run.stderr = r.stdout, r.stderr
		run.result.Step = r.step(2 * spec.keep)
		run.result.Verdict = verdictOf(run.result.Step, m)
		if spool != nil && run.result.Error == nil {
			// Only now: step killed and reaped all the test started.
			if err := spool.send(out, i); err != nil {
				f := failure(protocol.ErrInternal, fmt.Sprintf("test %q: its output for the checker: %v", t.Name, err))
				return nil, &f
			}
			run.result.CheckedBytes = spool.sent()
		}
		if m != nil && run.result.Error == nil {
			matched := m.Match()
			run.result.Match = &matched
			if !matched {
				run.result.Line = m.Line()
			}
		}
		t.Expect = nil
	}
	return shareOutput(runs, budget), nil
}

// testLimits are a test's wall-clock and CPU-time limits, left the time
// left and tests the tests still to run: --test-timeout (else a fair
// share of the time left) and --cpu-time, each times the language's time
// factor, the wall-clock limit never past the time left.
func testLimits(cfg runargs.Args, left time.Duration, tests int) (wall, cpu time.Duration) {
	factor := max(cfg.TimeFactor, 1)
	scale := func(d time.Duration) time.Duration { return time.Duration(float64(d) * factor) }
	wall = left / time.Duration(tests)
	if cfg.TestTimeout > 0 {
		wall = min(scale(cfg.TestTimeout), left)
	}
	return wall, scale(cfg.CPUTime)
}

// matcher compares a test's output, written to it as the program writes
// it, with the expected output: an expect.Matcher, or an expect.Float.
type matcher interface {
	io.Writer
	Match() bool
	Line() int64
}

// matcherFor is the matcher of want under a request's compare mode,
// which the request's decoding checked.
func matcherFor(want []byte, mode string) matcher {
	c, _ := protocol.ParseCompare(mode)
	if c.Mode == protocol.CompareFloat {
		return expect.NewFloat(want, c.Abs, c.Rel)
	}
	return expect.NewMatcher(want, expect.Mode(c.Mode))
}

// verdictOf is a test's verdict: how its step ended, then whether its
// output matched (m nil: nothing to match).
func verdictOf(st protocol.Step, m matcher) string {
	if st.Error != nil {
		switch st.Error.Type {
		case protocol.ErrOOM:
			return protocol.TestOOM
		case protocol.ErrTimeout:
			return protocol.TestTimeout
		case protocol.ErrCPUTime:
			return protocol.TestCPUTimeout
		}
		return protocol.TestProgramError
	}
	if m != nil && !m.Match() {
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
