package frames

import (
	"bytes"
	"errors"
	"fmt"
	"sync"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// LiveSink takes an interactive run's live frames (protocol.LiveHeader)
// as they arrive: Ready and Done of a test, what its process wrote (IO,
// b valid only during the call) and the end of that (Shut). None of them may fail; each may
// wait (the other side reading), which makes the runner wait.
type LiveSink interface {
	Ready(test int)
	IO(test int, b []byte)
	Shut(test int)
	Done(test int)
	// Break is told once why the frames broke the wire's rules;
	// nothing follows it.
	Break(err error)
}

// live splits the live frames that come before an interactive run's
// response from it, as they arrive. A frame out of its rules (a line
// that is none, a test past the request's) breaks the stream: nothing
// after it is kept, and Err says why.
type live struct {
	sink  LiveSink
	tests int

	mu   sync.Mutex
	head []byte
	test int // of the =io frame being read
	left int // of its bytes
	done bool
	err  error
}

// TakeLive makes r split off the live frames of an interactive run of
// tests tests, into sink. Call it before the first byte comes.
func (f *Response) TakeLive(sink LiveSink, tests int) {
	f.live = &live{sink: sink, tests: tests}
}

// LiveErr is why the live frames broke their rules, nil if they did not
// (or there were none to take).
func (f *Response) LiveErr() error {
	if f.live == nil {
		return nil
	}
	f.live.mu.Lock()
	defer f.live.mu.Unlock()
	return f.live.err
}

// feed takes p: the frames to the sink, and returns what is the
// response's.
func (l *live) feed(p []byte) []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	for len(p) > 0 && !l.done && l.err == nil {
		switch {
		case l.left > 0:
			k := min(len(p), l.left)
			l.sink.IO(l.test, p[:k])
			l.left -= k
			p = p[k:]
		case l.head != nil:
			i := bytes.IndexByte(p, '\n')
			take := p
			if i >= 0 {
				take = p[:i]
			}
			if len(l.head)+len(take) > protocol.MaxLiveHeader {
				l.fail(errors.Join(errors.New("live frames"), protocol.ErrLiveHeader))
				break
			}
			l.head = append(l.head, take...)
			if i < 0 {
				return nil
			}
			p = p[i+1:]
			l.begin()
		case p[0] == '=':
			l.head = make([]byte, 0, protocol.MaxLiveHeader)
		default:
			l.done = true
		}
	}
	if l.err != nil {
		return nil
	}
	return p
}

// fail breaks the stream, and tells the sink.
func (l *live) fail(err error) {
	l.err = err
	l.sink.Break(err)
}

// begin takes the frame whose line was read.
func (l *live) begin() {
	kind, i, n, err := protocol.ParseLiveHeader(l.head, protocol.LiveReady, protocol.LiveIO, protocol.LiveShut, protocol.LiveDone)
	l.head = nil
	switch {
	case err != nil:
		l.fail(errors.Join(errors.New("live frames"), err))
		return
	case i >= l.tests:
		l.fail(fmt.Errorf("live frames: test %d, of %d tests", i, l.tests))
		return
	}
	switch kind {
	case protocol.LiveReady:
		l.sink.Ready(i)
	case protocol.LiveShut:
		l.sink.Shut(i)
	case protocol.LiveDone:
		l.sink.Done(i)
	case protocol.LiveIO:
		l.test, l.left = i, n
	}
}
