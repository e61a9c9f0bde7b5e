// Package relay carries an interactive judge request's live frames
// between the program's run and its interactor's, on the host: test by
// test, bounded, noting who ended each test first.
package relay

import (
	"fmt"
	"io"
	"sync"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// Relay carries an interactive request's live frames between its two
// runs, the program's (Program) and the interactor's (Interactor): each one's
// =io to the other's stdin as =in, its =shut as =eof and its =done as
// =end; each test goes (=go) once both sides are ready for it, and a
// side's =go always comes before any frame of the test. It holds at most
// relayQueue frames a side: a side that does not read makes the other
// wait, never the host's memory grow. A side's frames out of their order
// (a test that is not its next, or not going) break the relay: both
// stdins end, and the run is the sandbox's failure (Broken). It notes
// each test's end as it relays it (End: who ended first), and bounds
// what the program gives the interactor (given).
type Relay struct {
	feeds [2]*feed

	mu     sync.Mutex
	ready  [2]int // the last test each side was ready for; -1: none yet
	going  [2]int // the test each side's frames are for: its =go came, its =done not; -1: none
	ends   []End
	broke  error
	closed bool
}

// The sides of a relay: Program and Interactor.
const (
	Program    = 0
	Interactor = 1
)

// sideNames name the sides in a broken relay's error.
var sideNames = [2]string{"the program's runner", "the interactor's runner"}

// relayQueue is how many frames a side's feed holds: of at most
// protocol.MaxLiveChunk bytes each.
const relayQueue = 16

// New is the relay of an interactive request of n tests.
func New(n int) *Relay {
	r := &Relay{ready: [2]int{-1, -1}, going: [2]int{-1, -1}, ends: make([]End, n)}
	for i := range r.ends {
		r.ends[i].First = -1
	}
	for k := range r.feeds {
		r.feeds[k] = &feed{ch: make(chan []byte, relayQueue), went: -1}
	}
	return r
}

// Side is side k's end of the relay: the sink of its live frames, and
// the writer of its stdin.
func (r *Relay) Side(k int) *Side { return &Side{r: r, k: k} }

// Gone ends the relay once side k's run ended: the other side's stdin
// then reaches EOF after what was queued for it, which ends the test it
// runs and leaves the rest unrun. A test going on either side that no
// side had ended, side k ended first: its run's end is what ends the
// other's stdin.
func (r *Relay) Gone(k int) {
	r.mu.Lock()
	if !r.closed {
		for _, i := range r.going {
			r.endedLocked(i, k)
		}
	}
	r.closed = true
	r.mu.Unlock()
	for _, f := range r.feeds {
		f.close()
	}
}

// Broken is why a side broke the relay, nil if none did.
func (r *Relay) Broken() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.broke
}

// fail breaks the relay: side k's frames broke their order (err).
func (r *Relay) fail(k int, err error) {
	r.mu.Lock()
	if r.broke == nil && !r.closed {
		r.broke = fmt.Errorf("live frames of %s: %w", sideNames[k], err)
	}
	r.mu.Unlock()
	r.Gone(k)
}

// Side is one side's end of a relay (frames.LiveSink).
type Side struct {
	r *Relay
	k int
}

// Ready starts test i on both sides once both are ready for it. A side is
// ready for each test once, in order, and only once its last one is done.
func (s *Side) Ready(i int) {
	r := s.r
	r.mu.Lock()
	if i != r.ready[s.k]+1 || r.going[s.k] >= 0 {
		r.mu.Unlock()
		r.fail(s.k, fmt.Errorf("=ready %d after =ready %d", i, r.ready[s.k]))
		return
	}
	r.ready[s.k] = i
	both := r.ready[1-s.k] == i
	if both {
		r.going = [2]int{i, i}
	}
	r.mu.Unlock()
	if both {
		for _, f := range r.feeds {
			f.send(i, nil)
		}
	}
}

// check holds a frame of side k for test i to its test: the one going.
func (s *Side) check(kind string, i int) bool {
	r := s.r
	r.mu.Lock()
	ok := r.going[s.k] == i
	r.mu.Unlock()
	if !ok {
		r.fail(s.k, fmt.Errorf("=%s %d, for a test that is not going", kind, i))
	}
	return ok
}

// IO sends what side k's test i wrote to the other side's stdin, what
// the program sends within its bound (given). Once it passes it, the
// interactor's stdin ends there and the program is stopped, as at the
// interactor's end.
func (s *Side) IO(i int, b []byte) {
	if !s.check(protocol.LiveIO, i) {
		return
	}
	b, send, cut := s.r.given(s.k, i, b)
	if send {
		s.r.feeds[1-s.k].send(i, append(protocol.LiveHeader(protocol.LiveIn, i, len(b)), b...))
	}
	if cut {
		s.r.feeds[Interactor].send(i, protocol.LiveHeader(protocol.LiveEOF, i, 0))
		s.r.feeds[Program].send(i, protocol.LiveHeader(protocol.LiveEnd, i, 0))
	}
}

// Shut ends the other side's stdin in test i: side k's stdout ended.
func (s *Side) Shut(i int) {
	if s.check(protocol.LiveShut, i) {
		s.r.ended(i, s.k) // before the other side can read its EOF
		s.r.feeds[1-s.k].send(i, protocol.LiveHeader(protocol.LiveEOF, i, 0))
	}
}

// Done ends the other side's test i: side k's test i ended.
func (s *Side) Done(i int) {
	if !s.check(protocol.LiveDone, i) {
		return
	}
	s.r.mu.Lock()
	s.r.going[s.k] = -1
	s.r.endedLocked(i, s.k) // before the other side can see its end
	s.r.mu.Unlock()
	s.r.feeds[1-s.k].send(i, protocol.LiveHeader(protocol.LiveEnd, i, 0))
}

// Break breaks the relay: side k's frames broke the wire's rules.
func (s *Side) Break(err error) { s.r.fail(s.k, err) }

// Stdin is side k's stdin writer: first (its request's own data; nil:
// none), then its feed until the relay is gone.
func (s *Side) Stdin(first func(io.Writer) error) func(io.Writer) error {
	return func(w io.Writer) error {
		var err error
		if first != nil {
			err = first(w)
		}
		return s.r.feeds[s.k].pump(w, err)
	}
}

// feed is the frames queued for one side's stdin.
type feed struct {
	mu     sync.Mutex // held while a frame is queued, so close waits for it
	closed bool
	went   int // the last test whose =go was queued; -1: none
	ch     chan []byte
}

// send queues test i's =go unless it went already, then b (nil: none),
// unless the feed was closed: the other side's frames of a test that
// just went may come before its =go from the side that was ready last,
// and must follow it. It waits while the queue is full, which pump
// always drains (a side that is gone, dropping).
func (f *feed) send(i int, b []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	if f.went < i {
		f.went = i
		f.ch <- protocol.LiveHeader(protocol.LiveGo, i, 0)
	}
	if b != nil {
		f.ch <- b
	}
}

func (f *feed) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.closed {
		f.closed = true
		close(f.ch)
	}
}

// pump writes the queued frames to w until the feed is closed; after a
// write failed (err: the run is gone), it drops them, so a sender never
// waits on a side that is gone.
func (f *feed) pump(w io.Writer, err error) error {
	for b := range f.ch {
		if err == nil {
			_, err = w.Write(b)
		}
	}
	return err
}
