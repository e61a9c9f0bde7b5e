package isolation

import (
	"io"
	"sync"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// relay carries an interactive request's live frames between its two
// runs, the program's (side 0) and the interactor's (side 1): each one's
// =io to the other's stdin as =in, and its =shut as =eof; each test started on both sides at
// once (=go once both are =ready); each one's =done to the other as =end.
// It holds at most relayQueue frames a side: a side that does not read
// makes the other wait, never the host's memory grow.
type relay struct {
	feeds [2]*feed

	mu    sync.Mutex
	ready [2]int // the test each side is ready for; -1: none yet
	first []int  // per test, the side whose =done came first; -1: none yet
}

// The sides of a relay.
const (
	programSide    = 0
	interactorSide = 1
)

// relayQueue is how many frames a side's feed holds: of at most
// protocol.MaxLiveChunk bytes each.
const relayQueue = 16

func newRelay(tests int) *relay {
	r := &relay{ready: [2]int{-1, -1}, first: make([]int, tests)}
	for i := range r.first {
		r.first[i] = -1
	}
	for k := range r.feeds {
		r.feeds[k] = &feed{ch: make(chan []byte, relayQueue)}
	}
	return r
}

// side is side k's end of the relay: the sink of its live frames, and
// the writer of its stdin.
func (r *relay) side(k int) *relaySide { return &relaySide{r: r, k: k} }

// gone ends the relay once either run ended: the other side's stdin then
// reaches EOF after what was queued for it, which ends the test it runs
// and leaves the rest unrun.
func (r *relay) gone() {
	for _, f := range r.feeds {
		f.close()
	}
}

// firstDone is the side whose test i ended first, -1 if neither's did.
func (r *relay) firstDone(i int) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.first[i]
}

// relaySide is one side's end of a relay (frames.LiveSink).
type relaySide struct {
	r *relay
	k int
}

// Ready starts test i on both sides once both are ready for it.
func (s *relaySide) Ready(i int) {
	r := s.r
	r.mu.Lock()
	r.ready[s.k] = i
	both := r.ready[1-s.k] == i
	r.mu.Unlock()
	if both {
		for _, f := range r.feeds {
			f.send(protocol.LiveHeader(protocol.LiveGo, i, 0))
		}
	}
}

// IO sends what side k's test i wrote to the other side's stdin.
func (s *relaySide) IO(i int, b []byte) {
	s.r.feeds[1-s.k].send(append(protocol.LiveHeader(protocol.LiveIn, i, len(b)), b...))
}

// Shut ends the other side's stdin in test i: side k's stdout ended.
func (s *relaySide) Shut(i int) {
	s.r.feeds[1-s.k].send(protocol.LiveHeader(protocol.LiveEOF, i, 0))
}

// Done notes which side's test i ended first, and ends the other's.
func (s *relaySide) Done(i int) {
	r := s.r
	r.mu.Lock()
	if r.first[i] < 0 {
		r.first[i] = s.k
	}
	r.mu.Unlock()
	r.feeds[1-s.k].send(protocol.LiveHeader(protocol.LiveEnd, i, 0))
}

// stdin is side k's stdin writer: first (its request's own data; nil:
// none), then its feed until the relay is gone.
func (s *relaySide) stdin(first func(io.Writer) error) func(io.Writer) error {
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
	ch     chan []byte
}

// send queues b, unless the feed was closed; it waits while the queue
// is full, which pump always drains.
func (f *feed) send(b []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.closed {
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
