package isolation

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// relayed runs both sides' stdin writers of rl into buffers until rl is
// gone, and returns them once it is: frames queued before gone are kept.
func relayed(t *testing.T, rl *relay, drive func(prog, inter *relaySide)) [2]string {
	var got [2]bytes.Buffer
	var wg sync.WaitGroup
	for k := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.Check(t, rl.side(k).stdin(nil)(&got[k]))
		}()
	}
	drive(rl.side(programSide), rl.side(interactorSide))
	rl.gone()
	wg.Wait()
	return [2]string{got[0].String(), got[1].String()}
}

// TestRelayCarriesFrames: a test goes on both sides once both are ready,
// each side's output reaches the other's stdin as =in, its =shut as =eof
// and its =done as =end; the relay's end ends both stdins after what was
// queued.
func TestRelayCarriesFrames(t *testing.T) {
	rl := newRelay()
	got := relayed(t, rl, func(prog, inter *relaySide) {
		prog.Ready(0)
		inter.Ready(0)
		inter.IO(0, []byte("100\n"))
		prog.IO(0, []byte("50\n"))
		prog.Shut(0)
		prog.Done(0)
		inter.Done(0)
		inter.Ready(1)
	})
	assert.Check(t, is.Equal(got[programSide], "=go 0\n=in 0 4\n100\n=end 0\n"))
	assert.Check(t, is.Equal(got[interactorSide], "=go 0\n=in 0 3\n50\n=eof 0\n=end 0\n"))
	assert.NilError(t, rl.broken())
}

// TestRelayGoComesFirst: a side whose =go is still to be queued (the
// other side, ready last, is queuing it) gets it before the first frame
// of the test, never after, and once.
func TestRelayGoComesFirst(t *testing.T) {
	rl := newRelay()
	got := relayed(t, rl, func(prog, inter *relaySide) {
		prog.Ready(0)
		rl.mu.Lock() // as Ready does, the moment both are ready, before it queues the =go
		rl.ready[interactorSide], rl.going = 0, [2]int{0, 0}
		rl.mu.Unlock()
		inter.IO(0, []byte("100\n")) // the interactor, started, writes at once
		rl.feeds[programSide].send(0, nil)
		rl.feeds[interactorSide].send(0, nil)
	})
	assert.Check(t, is.Equal(got[programSide], "=go 0\n=in 0 4\n100\n"))
	assert.Check(t, is.Equal(got[interactorSide], "=go 0\n"))
}

// TestRelayRefusesFramesOutOfOrder: a side's frame for a test that is
// not going, or a =ready out of turn, breaks the relay, naming the side;
// both stdins end.
func TestRelayRefusesFramesOutOfOrder(t *testing.T) {
	for name, c := range map[string]struct {
		drive func(prog, inter *relaySide)
		want  string
	}{
		"io before its test goes": {func(prog, inter *relaySide) { inter.IO(0, []byte("x")) },
			"live frames of the interactor's runner: =io 0, for a test that is not going"},
		"ready twice": {func(prog, inter *relaySide) { prog.Ready(0); prog.Ready(0) },
			"live frames of the program's runner: =ready 0 after =ready 0"},
		"ready skipping a test": {func(prog, inter *relaySide) { prog.Ready(1) },
			"live frames of the program's runner: =ready 1 after =ready -1"},
		"ready while its test goes": {func(prog, inter *relaySide) { prog.Ready(0); inter.Ready(0); prog.Ready(1) },
			"live frames of the program's runner: =ready 1 after =ready 0"},
		"done twice": {func(prog, inter *relaySide) { prog.Ready(0); inter.Ready(0); inter.Done(0); inter.Done(0) },
			"live frames of the interactor's runner: =done 0, for a test that is not going"},
		"a broken wire": {func(prog, inter *relaySide) { prog.Break(errors.New("a live frame's line that is none")) },
			"live frames of the program's runner: a live frame's line that is none"},
	} {
		rl := newRelay()
		relayed(t, rl, c.drive)
		assert.Check(t, is.Error(rl.broken(), c.want), name)
	}
}

// failingWriter fails every write, as a run that is gone does.
type failingWriter struct{ n int }

func (f *failingWriter) Write(p []byte) (int, error) { f.n++; return 0, errors.New("gone") }

// TestRelayNeverWaitsOnASideThatIsGone: once a side's stdin fails, what
// is sent to it is dropped, however much, so the other side never waits.
func TestRelayNeverWaitsOnASideThatIsGone(t *testing.T) {
	rl := newRelay()
	w := &failingWriter{}
	done := make(chan error)
	go func() { done <- rl.side(interactorSide).stdin(nil)(w) }()
	go func() { _ = rl.side(programSide).stdin(nil)(io.Discard) }()
	rl.side(programSide).Ready(0)
	rl.side(interactorSide).Ready(0)
	for range 10 * relayQueue {
		rl.side(programSide).IO(0, []byte("x"))
	}
	rl.gone()
	assert.Check(t, is.ErrorContains(<-done, "gone"))
	assert.Check(t, is.Equal(w.n, 1))
}

// interactorStep is an interactor's run on a test: exited code, or
// stopped by a limit (errType), or not run.
func interactorStep(code int, errType string, notRun bool) TestResult {
	t := checkerStep(code, errType, "100\nlower\n", "found it\n")
	t.NotRun = notRun
	return t
}

// TestInteractiveDecides: the program's own failure stands, whatever
// the interactor said; a program that exited 0, or that its runner
// stopped at the interactor's end, takes the interactor's grade (a score
// from its stderr alone); a test either side did not run, or the
// interactor did not grade, is the judge's failure.
func TestInteractiveDecides(t *testing.T) {
	stopped := &ErrorDetail{Type: protocol.ErrTimeout, Message: "stopped at the interactor's end"}
	crashed := &ErrorDetail{Type: protocol.ErrExec, Message: "signal: segmentation fault"}
	points := checkerStep(7, "", "100\nlower\n", "points 0.5\n")
	for _, c := range []struct {
		name    string
		program TestResult
		inter   TestResult
		verdict Verdict
		err     bool // the test keeps an error of the program's
		graded  bool
	}{
		{"both ok", TestResult{Verdict: OK}, interactorStep(0, "", false), OK, false, true},
		{"a wrong answer", TestResult{Verdict: OK}, interactorStep(1, "", false), WrongAnswer, false, true},
		{"points from stderr", TestResult{Verdict: OK}, points, Points, false, true},
		{"stopped at the interactor's end", TestResult{Verdict: Timeout, Stopped: true, Step: Step{Error: stopped}}, interactorStep(0, "", false), OK, false, true},
		{"stopped, the interactor gone", TestResult{Verdict: Timeout, Stopped: true, Step: Step{Error: stopped}}, interactorStep(0, protocol.ErrTimeout, false), JudgeFailure, false, true},
		{"the program crashed", TestResult{Verdict: ProgramError, Step: Step{Error: crashed}}, interactorStep(0, "", false), ProgramError, true, false},
		{"the program's own limit", TestResult{Verdict: Timeout, Step: Step{Error: &ErrorDetail{Type: protocol.ErrTimeout, Message: "stopped at its wall-clock limit of 2s"}}}, interactorStep(1, "", false), Timeout, true, false},
		{"the interactor hung", TestResult{Verdict: OK}, interactorStep(0, protocol.ErrTimeout, false), JudgeFailure, false, true},
		{"the interactor failed", TestResult{Verdict: OK}, interactorStep(3, "", false), JudgeFailure, false, true},
		{"the interactor did not run it", TestResult{Verdict: OK}, interactorStep(0, "", true), JudgeFailure, false, false},
		{"the request's timeout came first", TestResult{Verdict: Timeout, NotRun: true, Step: Step{Error: &ErrorDetail{Type: protocol.ErrTimeout, Message: "not run: the request's deadline of 10s came first"}}}, interactorStep(0, "", true), Timeout, true, false},
		{"the program's side did not run it", TestResult{Verdict: ProgramError, NotRun: true, Step: Step{Error: &ErrorDetail{Type: protocol.ErrInternal, Message: "not run: the interactor ended before it"}}}, interactorStep(0, "", false), JudgeFailure, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.program.Name = "a"
			res := Result{Tests: []TestResult{c.program}}
			interactive(&res, Result{Verdict: OK, Tests: []TestResult{c.inter}})
			got := res.Tests[0]
			assert.Check(t, is.Equal(got.Verdict, c.verdict))
			assert.Check(t, is.Equal(res.Verdict, c.verdict))
			assert.Check(t, is.Equal(got.Error != nil, c.err), "%+v", got.Error)
			assert.Assert(t, got.Interactor != nil)
			assert.Check(t, is.Equal(got.Interactor.Output, "100\nlower\n"))
			assert.Check(t, is.Equal(got.Interactor.Graded, c.graded))
			if c.verdict == Points {
				assert.Assert(t, got.Points != nil)
				assert.Check(t, is.Equal(*got.Points, 0.5))
			}
			if c.verdict == JudgeFailure {
				assert.Check(t, got.Interactor.Error != nil && strings.Contains(res.Error.Message, "interactor") || strings.Contains(res.Error.Message, "side"), "%+v", res.Error)
			}
		})
	}
}

// TestInteractiveWithoutTheInteractorsTests: an interactor's run that
// answered for no test (it failed to compile, say) makes every test the
// program did not fail itself a judge's failure, its cause named.
func TestInteractiveWithoutTheInteractorsTests(t *testing.T) {
	res := Result{Tests: []TestResult{{Name: "a", Verdict: OK}, {Name: "b", Verdict: OK}}}
	interactive(&res, Result{Verdict: CompileError, Error: &ErrorDetail{Type: "compile_error", Message: "compilation failed: x"}})
	for _, tc := range res.Tests {
		assert.Check(t, is.Equal(tc.Verdict, JudgeFailure))
		assert.Check(t, is.Equal(tc.Interactor.Error.Message, "the interactor's run: compilation failed: x"))
	}
	assert.Check(t, is.Equal(res.Verdict, JudgeFailure))
}

// TestInteractorOptions: the interactor waits on the program, so each of
// its tests has the program's whole timeout (the default one when none
// is set) and limits.CheckerTimeout of wall-clock time, within a
// deadline that holds its compile step and every test, and never past
// limits.MaxTimeout.
func TestInteractorOptions(t *testing.T) {
	for _, c := range []struct {
		timeout time.Duration
		tests   int
		wall    time.Duration
	}{
		{0, 3, limits.DefaultTimeout + limits.CheckerTimeout},
		{5 * time.Second, 1, 15 * time.Second},
		{limits.MaxTimeout, 20, limits.MaxTimeout},
	} {
		o := interactorOptions(Options{Image: "sha256:program", Limits: limits.Config{Timeout: c.timeout}}, "sha256:interactor", c.tests)
		assert.Check(t, is.Equal(o.Image, "sha256:interactor"))
		assert.Check(t, is.Equal(o.Limits.TestTimeout, c.wall), "timeout %s", c.timeout)
		assert.Check(t, is.Equal(o.Limits.CPUTime, limits.CheckerTimeout))
		assert.Check(t, is.Equal(o.Limits.Memory, limits.CheckerMemory))
		assert.Check(t, o.Limits.Timeout >= o.Limits.TestTimeout && o.Limits.Timeout <= limits.MaxTimeout, "%+v", o.Limits)
		assert.Check(t, limits.CheckTestTimeout(o.Limits.TestTimeout, o.Limits.Timeout) == nil)
	}
}

// TestCheckInteractor: an interactor is refused as a checker is (its
// source, its image), and so is one with nothing to grade, beside a
// compare mode or beside a checker; each refusal names the interactor.
func TestCheckInteractor(t *testing.T) {
	image := "sha256:" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	good := Request{Tests: []Test{{Name: "a"}}, Interactor: &Interactor{Source: "import sys", Image: image}}
	assert.NilError(t, checkInteractor(good))
	for want, mutate := range map[string]func(*Request){
		"interactor: a checker beside it: the interactor grades":                 func(r *Request) { r.Checker = &Checker{Source: "x", Image: image} },
		"interactor: an interactor grades tests, and there are none":             func(r *Request) { r.Tests = nil },
		`interactor: compare "exact": with an interactor, the interactor grades`: func(r *Request) { r.Compare = "exact" },
		"interactor: no source":             func(r *Request) { r.Interactor = &Interactor{Source: " \n", Image: image} },
		"interactor: image: ":               func(r *Request) { r.Interactor = &Interactor{Source: "x", Image: "python:3"} },
		"interactor: source: invalid UTF-8": func(r *Request) { r.Interactor = &Interactor{Source: "\xff", Image: image} },
	} {
		r := good
		mutate(&r)
		err := checkInteractor(r)
		assert.Check(t, is.ErrorContains(err, want))
		assert.Check(t, is.Equal(verdictOf(err), Rejected))
	}
}
