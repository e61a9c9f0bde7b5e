package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// responder writes the single response exactly once, whichever of the
// program or the hard-stop watchdog finishes first, and before it a
// checked request's output frames (frame), never one of them within
// another or after the response.
type responder struct {
	once      sync.Once
	mu        sync.Mutex // held while out is written; after the response, closed is set
	closed    bool
	out       io.Writer
	handshake time.Duration // from the hello written to the request read; set before the watchdog is armed
	received  time.Time     // when the request arrived; set before the watchdog is armed
	ok        bool          // set inside once; read after a Do call returns
}

// send writes resp unless a response was already attempted; it reports
// whether this call wrote it.
func (r *responder) send(resp protocol.Response) bool {
	sent := false
	r.once.Do(func() {
		if !r.received.IsZero() {
			resp.ElapsedMicros = time.Since(r.received).Microseconds()
			resp.HandshakeMicros = max(r.handshake.Microseconds(), 1)
		}
		b, err := json.Marshal(resp)
		if err == nil {
			r.mu.Lock()
			_, err = r.out.Write(append(b, '\n'))
			r.closed = true
			r.mu.Unlock()
		}
		r.ok, sent = err == nil, err == nil
	})
	return sent
}

// errResponded: the response was written, and nothing may follow it.
var errResponded = errors.New("the response was written already")

// frame writes test i's output frame (protocol.OutputHeader), b its
// bytes, unless the response was written.
func (r *responder) frame(i int, b []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return errResponded
	}
	if _, err := r.out.Write(protocol.OutputHeader(i, int64(len(b)))); err != nil {
		return err
	}
	_, err := r.out.Write(b)
	return err
}

func (r *responder) sentOK() bool {
	r.once.Do(func() {}) // orders this read after any completed send
	return r.ok
}

// exit, deferred first in run and so run last, answers for a panic and
// sets run's exit code.
func (r *responder) exit(code *int) {
	if p := recover(); p != nil {
		r.send(failure(protocol.ErrInternal, fmt.Sprint("runner panic: ", p)))
	}
	*code = 0
	if !r.sentOK() {
		*code = 2
	}
}
