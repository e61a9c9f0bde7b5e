package isolation

import (
	"bytes"
	"errors"
	"io"
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
	rl.gone(programSide)
	wg.Wait()
	return [2]string{got[0].String(), got[1].String()}
}

// TestRelayCarriesFrames: a test goes on both sides once both are ready,
// each side's output reaches the other's stdin as =in, its =shut as =eof
// and its =done as =end; the relay's end ends both stdins after what was
// queued.
func TestRelayCarriesFrames(t *testing.T) {
	rl := newRelay(2)
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
	rl := newRelay(2)
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
		rl := newRelay(2)
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
	rl := newRelay(2)
	w := &failingWriter{}
	done := make(chan error)
	go func() { done <- rl.side(interactorSide).stdin(nil)(w) }()
	go func() { _ = rl.side(programSide).stdin(nil)(io.Discard) }()
	rl.side(programSide).Ready(0)
	rl.side(interactorSide).Ready(0)
	for range 10 * relayQueue {
		rl.side(programSide).IO(0, []byte("x"))
	}
	rl.gone(programSide)
	assert.Check(t, is.ErrorContains(<-done, "gone"))
	assert.Check(t, is.Equal(w.n, 1))
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
// source, its image), and so is one with nothing to grade or beside a
// compare mode; each refusal names the interactor.
func TestCheckInteractor(t *testing.T) {
	image := "sha256:" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	good := Request{Tests: []Test{{Name: "a"}}, Grader: &protocol.Interactor{Source: "import sys", Image: image}}
	assert.NilError(t, checkInteractor(good, good.Grader.(*protocol.Interactor)))
	for want, mutate := range map[string]func(*Request){
		"interactor: an interactor grades tests, and there are none":             func(r *Request) { r.Tests = nil },
		`interactor: compare "exact": with an interactor, the interactor grades`: func(r *Request) { r.Compare = "exact" },
		"interactor: no source":             func(r *Request) { r.Grader = &protocol.Interactor{Source: " \n", Image: image} },
		"interactor: image: ":               func(r *Request) { r.Grader = &protocol.Interactor{Source: "x", Image: "python:3"} },
		"interactor: source: invalid UTF-8": func(r *Request) { r.Grader = &protocol.Interactor{Source: "\xff", Image: image} },
	} {
		r := good
		mutate(&r)
		err := checkInteractor(r, r.Grader.(*protocol.Interactor))
		assert.Check(t, is.ErrorContains(err, want))
		assert.Check(t, is.Equal(verdictOf(err), Rejected))
	}
}
