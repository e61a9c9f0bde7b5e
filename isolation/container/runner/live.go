package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sync"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// liveIn reads the host's live frames of an interactive request
// (protocol.LiveHeader) from the runner's stdin, after the request: =go
// starts a test (await), =in is written to the running test's stdin, =end
// ends it (its onEnd). It never blocks on a test that is gone: a test's
// stdin is a pipe whose read end only the test's processes hold, so a
// write to it fails once they are dead, and clear closes the write end,
// which wakes a write that waits. Frames are read in order: while the
// running test's process is alive and not reading a full pipe, the
// frames after its =in (an =end among them) wait with it, until it reads
// or is stopped at its own limit.
type liveIn struct {
	goes chan started  // each test =go started, in order
	gone chan struct{} // closed once the host's stream ended or broke

	mu    sync.Mutex
	test  int      // the test taking =in frames; -1: none
	w     *os.File // its stdin's write end
	onEnd func()   // what =end does to it
	ended int      // the last test whose =end came, -1: none
	err   error    // why the stream broke; nil at its EOF
}

// started is a test whose =go came: its index and its stdin's read end,
// whose write end takes the =in frames that follow at once.
type started struct {
	test  int
	stdin *os.File
	err   error
}

// readLive starts reading the live frames from r.
func readLive(r io.Reader) *liveIn {
	l := &liveIn{goes: make(chan started, 1), gone: make(chan struct{}), test: -1, ended: -1}
	go l.read(bufio.NewReaderSize(r, protocol.MaxLiveChunk))
	return l
}

func (l *liveIn) read(r *bufio.Reader) {
	defer close(l.gone)
	// However the stream ends, the test running is ended as by its =end,
	// and any to come at once: the other side is gone.
	defer l.end(math.MaxInt)
	for {
		line, err := readLine(r)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				l.broke(err)
			}
			return
		}
		kind, i, n, err := protocol.ParseLiveHeader(line, protocol.LiveGo, protocol.LiveIn, protocol.LiveEOF, protocol.LiveEnd)
		if err != nil {
			l.broke(err)
			return
		}
		switch kind {
		case protocol.LiveGo:
			l.goes <- l.start(i)
		case protocol.LiveEnd:
			l.end(i)
		case protocol.LiveEOF:
			l.eof(i)
		case protocol.LiveIn:
			if err := l.write(i, io.LimitReader(r, int64(n)), int64(n)); err != nil {
				l.broke(err)
				return
			}
		}
	}
}

// readLine reads one line, at most protocol.MaxLiveHeader bytes, without
// its newline.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		b, err := r.ReadSlice('\n')
		line = append(line, b...)
		if len(line) > protocol.MaxLiveHeader {
			return nil, protocol.ErrLiveHeader
		}
		switch {
		case err == nil:
			return bytes.TrimSuffix(line, []byte("\n")), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return nil, fmt.Errorf("the stream ended within a frame's line %.40q: %w", line, io.ErrUnexpectedEOF)
		default:
			return nil, err
		}
	}
}

// write copies an =in frame's n bytes to test i's stdin, or drops them:
// a test that is not running (it ended, or its =go has yet to come), or
// whose processes are gone. Only a short frame is an error.
func (l *liveIn) write(i int, src io.Reader, n int64) error {
	l.mu.Lock()
	var w io.Writer = io.Discard
	if l.test == i && l.w != nil {
		w = l.w
	}
	l.mu.Unlock()
	// Counted as read, not as written: a write that failed took bytes
	// it did not write.
	c := &countedReader{r: src}
	if _, err := io.Copy(w, c); err != nil { // the test's stdin is gone: drop the rest
		_, _ = io.Copy(io.Discard, c)
	}
	if c.n < n {
		return fmt.Errorf("test %d: an =in frame of %d bytes ended after %d: %w", i, n, c.n, io.ErrUnexpectedEOF)
	}
	return nil
}

// start makes test i the one taking =in frames, into a new pipe, as its
// =go is read: the frames that follow it are the test's, whether or not
// its process has started yet (the pipe holds them).
func (l *liveIn) start(i int) started {
	pr, pw, err := os.Pipe()
	if err != nil {
		return started{test: i, err: err}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w != nil {
		l.w.Close()
	}
	l.test, l.w, l.onEnd = i, pw, nil
	return started{test: i, stdin: pr}
}

// eof applies =eof to test i: its stdin reaches its end, as the other
// side's stdout did.
func (l *liveIn) eof(i int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.test == i && l.w != nil {
		l.w.Close()
		l.w = nil
	}
}

// end applies =end to test i: now if it runs, else once it starts (set).
func (l *liveIn) end(i int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ended = max(l.ended, i)
	if l.test >= 0 && l.test <= i && l.onEnd != nil {
		end := l.onEnd
		l.onEnd = nil
		end()
	}
}

// broke notes why the stream broke.
func (l *liveIn) broke(err error) {
	l.mu.Lock()
	l.err = err
	l.mu.Unlock()
}

// await waits for test i's =go and returns its stdin's read end; nil
// when the host's stream ended first (the other side is gone) or broke,
// or ctx (the request's deadline) ended.
func (l *liveIn) await(ctx context.Context, i int) (*os.File, error) {
	var s started
	select {
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	case s = <-l.goes:
	case <-l.gone:
		select {
		case s = <-l.goes:
		default:
			return nil, l.brokenBy()
		}
	}
	switch {
	case s.err != nil:
		return nil, s.err
	case s.test != i: // out of order: the host broke the protocol
		s.stdin.Close()
		return nil, fmt.Errorf("=go %d, for test %d", s.test, i)
	}
	return s.stdin, nil
}

// onEndOf sets what test i's =end does (onEnd runs with l.mu held); an
// =end that came already applies at once.
func (l *liveIn) onEndOf(i int, onEnd func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.test != i {
		return
	}
	l.onEnd = onEnd
	if l.ended >= i {
		l.onEnd = nil
		onEnd()
	}
}

// clear ends the test's stdin: later =in frames for it are dropped.
func (l *liveIn) clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clearLocked()
}

// clearLocked is clear with l.mu held: what an =end does (onEndOf).
func (l *liveIn) clearLocked() {
	if l.w != nil {
		l.w.Close()
	}
	l.test, l.w, l.onEnd = -1, nil, nil
}

// brokenBy is why the stream broke, nil if it did not.
func (l *liveIn) brokenBy() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// liveOut is a test's stdout as the host is sent it: =io frames of at
// most protocol.MaxLiveChunk bytes. It never fails a write, so the
// process's output is always drained; it waits while the host does,
// which is the other side reading.
type liveOut struct {
	r    *responder
	test int
}

// EOF tells the host the test's stdout reached its end (=shut).
func (o liveOut) EOF() { _ = o.r.live(protocol.LiveShut, o.test, nil) }

func (o liveOut) Write(p []byte) (int, error) {
	for b := p; len(b) > 0; {
		k := min(len(b), protocol.MaxLiveChunk)
		_ = o.r.live(protocol.LiveIO, o.test, b[:k])
		b = b[k:]
	}
	return len(p), nil
}

// live writes a live frame of kind for test i, b its bytes (nil for a
// kind that carries none), unless the response was written.
func (r *responder) live(kind string, i int, b []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return errResponded
	}
	_, err := r.out.Write(append(protocol.LiveHeader(kind, i, len(b)), b...))
	return err
}
