package isolation

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// TestRelayCarriesFrames: a test starts on both sides once both are
// ready, each side's output reaches the other's stdin as =in, its =shut
// as =eof and its =done as =end, the first =done is noted, and the
// relay's end ends both stdins after what was queued.
func TestRelayCarriesFrames(t *testing.T) {
	rl := newRelay(2)
	prog, inter := rl.side(programSide), rl.side(interactorSide)
	var got [2]bytes.Buffer
	var wg sync.WaitGroup
	for k, s := range []*relaySide{prog, inter} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.Check(t, s.stdin(nil)(&got[k]))
		}()
	}
	prog.Ready(0)
	inter.IO(0, []byte("ignored: no =go yet is the host's to check, not the relay's\n"))
	inter.Ready(0)
	inter.IO(0, []byte("100\n"))
	prog.IO(0, []byte("50\n"))
	prog.Shut(0)
	prog.Done(0)
	inter.Done(0)
	inter.Ready(1)
	rl.gone()
	wg.Wait()
	assert.Check(t, is.Equal(got[programSide].String(), "=in 0 60\nignored: no =go yet is the host's to check, not the relay's\n=go 0\n=in 0 4\n100\n=end 0\n"))
	assert.Check(t, is.Equal(got[interactorSide].String(), "=go 0\n=in 0 3\n50\n=eof 0\n=end 0\n"))
	assert.Check(t, is.Equal(rl.firstDone(0), programSide))
	assert.Check(t, is.Equal(rl.firstDone(1), -1))
}

// failingWriter fails every write, as a run that is gone does.
type failingWriter struct{ n int }

func (f *failingWriter) Write(p []byte) (int, error) { f.n++; return 0, errors.New("gone") }

// TestRelayNeverWaitsOnASideThatIsGone: once a side's stdin fails, what
// is sent to it is dropped, however much, so the other side never waits.
func TestRelayNeverWaitsOnASideThatIsGone(t *testing.T) {
	rl := newRelay(1)
	w := &failingWriter{}
	done := make(chan error)
	go func() { done <- rl.side(interactorSide).stdin(nil)(w) }()
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

// TestInteractiveDecides: the program's own failure stands when it ended
// first; else the interactor's exit grades, and the program's stop at
// the interactor's end is no failure of its own; an interactor that did
// not grade a test is the judge's failure.
func TestInteractiveDecides(t *testing.T) {
	stopped := &ErrorDetail{Type: protocol.ErrTimeout, Message: "stopped at the interactor's end"}
	crashed := &ErrorDetail{Type: protocol.ErrExec, Message: "signal: segmentation fault"}
	for _, c := range []struct {
		name    string
		program TestResult
		first   int
		inter   TestResult
		verdict Verdict
		err     bool // the test keeps an error of the program's
	}{
		{"both ok", TestResult{Verdict: OK}, programSide, interactorStep(0, "", false), OK, false},
		{"a wrong answer", TestResult{Verdict: OK}, programSide, interactorStep(1, "", false), WrongAnswer, false},
		{"stopped at the interactor's end", TestResult{Verdict: Timeout, Step: Step{Error: stopped}}, interactorSide, interactorStep(0, "", false), OK, false},
		{"the program crashed first", TestResult{Verdict: ProgramError, Step: Step{Error: crashed}}, programSide, interactorStep(1, "", false), ProgramError, true},
		{"the program's limit first", TestResult{Verdict: Timeout, Step: Step{Error: &ErrorDetail{Type: protocol.ErrTimeout, Message: "stopped at its wall-clock limit of 2s"}}}, programSide, interactorStep(1, "", false), Timeout, true},
		{"the interactor hung", TestResult{Verdict: OK}, programSide, interactorStep(0, protocol.ErrTimeout, false), JudgeFailure, false},
		{"the interactor failed", TestResult{Verdict: OK}, programSide, interactorStep(3, "", false), JudgeFailure, false},
		{"the interactor did not run it", TestResult{Verdict: ProgramError, NotRun: true, Step: Step{Error: &ErrorDetail{Type: protocol.ErrInternal, Message: "not run: the interactor ended before it"}}}, -1, interactorStep(0, "", true), JudgeFailure, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			rl := newRelay(1)
			if c.first >= 0 {
				rl.side(c.first).Done(0)
			}
			rl.gone()
			c.program.Name = "a"
			res := Result{Tests: []TestResult{c.program}}
			interactive(&res, Result{Verdict: OK, Tests: []TestResult{c.inter}}, rl)
			got := res.Tests[0]
			assert.Check(t, is.Equal(got.Verdict, c.verdict))
			assert.Check(t, is.Equal(res.Verdict, c.verdict))
			assert.Check(t, is.Equal(got.Error != nil, c.err), "%+v", got.Error)
			assert.Assert(t, got.Interactor != nil)
			assert.Check(t, is.Equal(got.Interactor.Output, "100\nlower\n"))
			assert.Check(t, is.Equal(got.Interactor.Graded, !c.err && !c.inter.NotRun))
			if c.verdict == JudgeFailure {
				assert.Check(t, got.Interactor.Error != nil && strings.Contains(res.Error.Message, "interactor"), "%+v", res.Error)
			}
		})
	}
}

// TestInteractiveWithoutTheInteractorsTests: an interactor's run that
// answered for no test (it failed to compile, say) makes every test the
// program did not fail itself a judge's failure, its cause named.
func TestInteractiveWithoutTheInteractorsTests(t *testing.T) {
	rl := newRelay(2)
	rl.gone()
	res := Result{Tests: []TestResult{{Name: "a", Verdict: OK}, {Name: "b", Verdict: OK}}}
	interactive(&res, Result{Verdict: CompileError, Error: &ErrorDetail{Type: "compile_error", Message: "compilation failed: x"}}, rl)
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
