package isolation

import (
	"bytes"
	"errors"
	"sync"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// errEarly: the runner wrote after its hello and before it had the
// request. A runner that follows the protocol cannot, since it has nothing
// to answer yet; two hello lines written at once are caught this way.
var errEarly = errors.New("the runner wrote more after its hello, before it was sent a request")

// frames splits what the runner writes to docker's stdout: the hello line
// first, bounded by limits.MaxHelloBytes, then, once the request was
// written, the response, through the bounded response capture. Bytes that
// come between the two are never kept, only noted. It is the client's
// stdout, so exec's copy goroutine is its only writer.
type frames struct {
	resp *firstByte
	// ended is closed when the hello line ended with its newline, or when
	// it passed the bound without one.
	ended chan struct{}

	mu    sync.Mutex
	line  []byte // the hello line, at most MaxHelloBytes+1 bytes
	wrote bool   // a byte came: the container exists
	done  bool   // ended is closed
	open  bool   // the request was written: what follows is the response
	early bool   // bytes came between the hello and the request
}

func newFrames(resp *firstByte) *frames {
	return &frames{resp: resp, ended: make(chan struct{})}
}

// Write never fails, so the client never blocks on its stdout; a frame
// out of bounds is judged by whoever reads it.
func (f *frames) Write(p []byte) (int, error) {
	n := len(p)
	f.mu.Lock()
	f.wrote = f.wrote || n > 0
	if !f.done {
		i := bytes.IndexByte(p, '\n')
		head := p
		if i >= 0 {
			head = p[:i]
		}
		if room := limits.MaxHelloBytes + 1 - len(f.line); room > 0 {
			f.line = append(f.line, head[:min(room, len(head))]...)
		}
		if i < 0 && len(f.line) <= limits.MaxHelloBytes {
			f.mu.Unlock()
			return n, nil
		}
		f.done = true
		close(f.ended)
		if i < 0 { // oversized: nothing of it is a frame
			f.mu.Unlock()
			return n, nil
		}
		p = p[i+1:]
	}
	if len(p) == 0 {
		f.mu.Unlock()
		return n, nil
	}
	if !f.open {
		f.early = true
		f.mu.Unlock()
		return n, nil
	}
	f.mu.Unlock()
	return f.resp.Write(p)
}

// spoke reports whether a byte came from the container: only its runner
// writes to the client's stdout, so then its create has landed.
func (f *frames) spoke() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.wrote
}

// hello returns the hello line once ended is closed.
func (f *frames) hello() []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.line
}

// begin marks the request as about to be written, unless the runner
// already broke the protocol by writing ahead of it. From here on, what
// the runner writes is its response.
func (f *frames) begin() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.early {
		return errEarly
	}
	f.open = true
	return nil
}
