package relay

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// relayed runs both sides' stdin writers of rl into buffers until rl is
// gone, and returns them once it is: frames queued before gone are kept.
func relayed(t *testing.T, rl *Relay, drive func(prog, inter *Side)) [2]string {
	var got [2]bytes.Buffer
	var wg sync.WaitGroup
	for k := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.Check(t, rl.Side(k).Stdin(nil)(&got[k]))
		}()
	}
	drive(rl.Side(Program), rl.Side(Interactor))
	rl.Gone(Program)
	wg.Wait()
	return [2]string{got[0].String(), got[1].String()}
}

// TestRelayCarriesFrames: a test goes on both sides once both are ready,
// each side's output reaches the other's stdin as =in, its =shut as =eof
// and its =done as =end; the relay's end ends both stdins after what was
// queued.
func TestRelayCarriesFrames(t *testing.T) {
	rl := New(2)
	got := relayed(t, rl, func(prog, inter *Side) {
		prog.Ready(0)
		inter.Ready(0)
		inter.IO(0, []byte("100\n"))
		prog.IO(0, []byte("50\n"))
		prog.Shut(0)
		prog.Done(0)
		inter.Done(0)
		inter.Ready(1)
	})
	assert.Check(t, is.Equal(got[Program], "=go 0\n=in 0 4\n100\n=end 0\n"))
	assert.Check(t, is.Equal(got[Interactor], "=go 0\n=in 0 3\n50\n=eof 0\n=end 0\n"))
	assert.NilError(t, rl.Broken())
}

// TestRelayGoComesFirst: a side whose =go is still to be queued (the
// other side, ready last, is queuing it) gets it before the first frame
// of the test, never after, and once.
func TestRelayGoComesFirst(t *testing.T) {
	rl := New(2)
	got := relayed(t, rl, func(prog, inter *Side) {
		prog.Ready(0)
		rl.mu.Lock() // as Ready does, the moment both are ready, before it queues the =go
		rl.ready[Interactor], rl.going = 0, [2]int{0, 0}
		rl.mu.Unlock()
		inter.IO(0, []byte("100\n")) // the interactor, started, writes at once
		rl.feeds[Program].send(0, nil)
		rl.feeds[Interactor].send(0, nil)
	})
	assert.Check(t, is.Equal(got[Program], "=go 0\n=in 0 4\n100\n"))
	assert.Check(t, is.Equal(got[Interactor], "=go 0\n"))
}

// TestRelayRefusesFramesOutOfOrder: a side's frame for a test that is
// not going, or a =ready out of turn, breaks the relay, naming the side;
// both stdins end.
func TestRelayRefusesFramesOutOfOrder(t *testing.T) {
	for name, c := range map[string]struct {
		drive func(prog, inter *Side)
		want  string
	}{
		"io before its test goes": {func(prog, inter *Side) { inter.IO(0, []byte("x")) },
			"live frames of the interactor's runner: =io 0, for a test that is not going"},
		"ready twice": {func(prog, inter *Side) { prog.Ready(0); prog.Ready(0) },
			"live frames of the program's runner: =ready 0 after =ready 0"},
		"ready skipping a test": {func(prog, inter *Side) { prog.Ready(1) },
			"live frames of the program's runner: =ready 1 after =ready -1"},
		"ready while its test goes": {func(prog, inter *Side) { prog.Ready(0); inter.Ready(0); prog.Ready(1) },
			"live frames of the program's runner: =ready 1 after =ready 0"},
		"done twice": {func(prog, inter *Side) { prog.Ready(0); inter.Ready(0); inter.Done(0); inter.Done(0) },
			"live frames of the interactor's runner: =done 0, for a test that is not going"},
		"a broken wire": {func(prog, inter *Side) { prog.Break(errors.New("a live frame's line that is none")) },
			"live frames of the program's runner: a live frame's line that is none"},
	} {
		rl := New(2)
		relayed(t, rl, c.drive)
		assert.Check(t, is.Error(rl.Broken(), c.want), name)
	}
}

// failingWriter fails every write, as a run that is gone does.
type failingWriter struct{ n int }

func (f *failingWriter) Write(p []byte) (int, error) { f.n++; return 0, errors.New("gone") }

// TestRelayNeverWaitsOnASideThatIsGone: once a side's stdin fails, what
// is sent to it is dropped, however much, so the other side never waits.
func TestRelayNeverWaitsOnASideThatIsGone(t *testing.T) {
	rl := New(2)
	w := &failingWriter{}
	done := make(chan error)
	go func() { done <- rl.Side(Interactor).Stdin(nil)(w) }()
	go func() { _ = rl.Side(Program).Stdin(nil)(io.Discard) }()
	rl.Side(Program).Ready(0)
	rl.Side(Interactor).Ready(0)
	for range 10 * relayQueue {
		rl.Side(Program).IO(0, []byte("x"))
	}
	rl.Gone(Program)
	assert.Check(t, is.ErrorContains(<-done, "gone"))
	assert.Check(t, is.Equal(w.n, 1))
}
