// Package frames splits what a container's runner writes to the `docker
// run` client's stdout into its frames as they arrive: the hello line
// first, bounded by limits.MaxHelloBytes, then, once the request was
// written, the response, through a bounded capture that notes when it
// began and when its line ended; before the response, a checked
// request's output frames, each handed whole to a Sink (TakeOutputs).
// Other bytes that come between the hello and the response are never
// kept, only noted. Every frame is hostile input: the writers never
// fail or block the client, and whoever reads a frame judges it.
package frames

import (
	"bytes"
	"errors"
	"sync"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol/capture"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// ErrEarly: the runner wrote after its hello and before it had the
// request. A runner that follows the protocol cannot, since it has nothing
// to answer yet; two hello lines written at once are caught this way.
var ErrEarly = errors.New("the runner wrote more after its hello, before it was sent a request")

// Stdout is the client's stdout, split into the hello line and the
// response (Response). exec's copy goroutine is its only writer.
type Stdout struct {
	resp *Response
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

// NewStdout returns a stdout whose response part goes to resp.
func NewStdout(resp *Response) *Stdout {
	return &Stdout{resp: resp, ended: make(chan struct{})}
}

// Write never fails, so the client never blocks on its stdout; a frame
// out of bounds is judged by whoever reads it.
func (f *Stdout) Write(p []byte) (int, error) {
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

// Ended is closed once the hello line ended, or passed its bound.
func (f *Stdout) Ended() <-chan struct{} { return f.ended }

// Spoke reports whether a byte came from the container: only its runner
// writes to the client's stdout, so then its create has landed.
func (f *Stdout) Spoke() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.wrote
}

// Hello returns the hello line (without its newline; more than
// limits.MaxHelloBytes when it passed the bound) once Ended is closed;
// before, what came of it so far.
func (f *Stdout) Hello() []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.line
}

// Begin marks the request as about to be written, unless the runner
// already broke the protocol by writing ahead of it (ErrEarly). From here
// on, what the runner writes is its response.
func (f *Stdout) Begin() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.early {
		return ErrEarly
	}
	f.open = true
	return nil
}

// Response is the bounded response capture that also notes when the
// response began to arrive, and when its line ended: the response is one
// line of JSON, which holds no raw newline, so its first newline is its
// end.
type Response struct {
	*capture.Buffer
	ended   chan struct{} // closed by the first newline written
	endOnce sync.Once

	mu sync.Mutex
	at time.Time // when the first byte came

	outputs *outputs // a checked request's output frames; nil for any other
	live    *live    // an interactive run's live frames; nil for any other
}

// NewResponse returns a response capture that keeps at most limit bytes
// (capture.Buffer: OnOverflow is told of more).
func NewResponse(limit int) *Response {
	return &Response{Buffer: capture.New(limit), ended: make(chan struct{})}
}

// Write keeps p within the bound and notes the response's first byte and
// its end.
func (f *Response) Write(p []byte) (int, error) {
	n := len(p)
	if f.outputs != nil {
		if p = f.outputs.feed(p); len(p) == 0 {
			return n, nil
		}
	}
	if f.live != nil {
		if p = f.live.feed(p); len(p) == 0 {
			return n, nil
		}
	}
	f.mu.Lock()
	if f.at.IsZero() {
		f.at = time.Now()
	}
	f.mu.Unlock()
	_, err := f.Buffer.Write(p)
	if bytes.IndexByte(p, '\n') >= 0 {
		f.endOnce.Do(func() { close(f.ended) })
	}
	return n, err
}

// Ended is closed once the response's line ended.
func (f *Response) Ended() <-chan struct{} { return f.ended }

// Arrived returns when the first response byte came, zero if none did
// yet.
func (f *Response) Arrived() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.at
}
