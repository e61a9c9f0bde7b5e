package frames

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// Sink takes a checked request's output frames (protocol.OutputHeader):
// Open once a frame's line was read, with its test's index and byte
// count; the writer it returns gets the frame's bytes, then Close.
type Sink interface {
	Open(test int, size int64) (io.WriteCloser, error)
}

// outputs splits the output frames that come before a checked request's
// response from it, as they arrive: each frame's bytes go to the sink,
// what follows the last to the response. A frame out of its rules (a
// line that is none, a test out of order or past the request's, more
// than limits.MaxCheckedOutput or limits.MaxCheckedTotal) breaks the
// stream: nothing after it is kept, and Err says why.
type outputs struct {
	sink  Sink
	tests int

	mu    sync.Mutex
	next  int   // the least index the next frame may have
	total int64 // bytes of all frames so far
	head  []byte
	w     io.WriteCloser
	left  int64 // of the frame being read
	done  bool  // the response began
	err   error // broken
}

// TakeOutputs makes r split off the output frames of a checked request
// of tests tests, into sink. Call it before the first byte comes.
func (f *Response) TakeOutputs(sink Sink, tests int) {
	f.outputs = &outputs{sink: sink, tests: tests}
}

// OutputsErr is why the output frames broke their rules, nil if they
// did not (or there were none to take).
func (f *Response) OutputsErr() error {
	if f.outputs == nil {
		return nil
	}
	f.outputs.mu.Lock()
	defer f.outputs.mu.Unlock()
	return f.outputs.err
}

// feed takes p: the frames' bytes to the sink, and returns what is the
// response's.
func (o *outputs) feed(p []byte) []byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	for len(p) > 0 && !o.done && o.err == nil {
		switch {
		case o.w != nil:
			k := min(int64(len(p)), o.left)
			if _, err := o.w.Write(p[:k]); err != nil {
				o.fail(fmt.Errorf("keeping test %d's output: %w", o.next-1, err))
			}
			o.left -= k
			p = p[k:]
			if o.left == 0 {
				o.end()
			}
		case o.head != nil:
			i := bytes.IndexByte(p, '\n')
			take := p
			if i >= 0 {
				take = p[:i]
			}
			if len(o.head)+len(take) > protocol.MaxOutputHeader {
				o.fail(protocol.ErrOutputHeader)
				break
			}
			o.head = append(o.head, take...)
			if i < 0 {
				return nil
			}
			p = p[i+1:]
			o.begin()
		case protocol.IsOutputFrame(p[0]):
			o.head = make([]byte, 0, protocol.MaxOutputHeader)
		default:
			o.done = true
		}
	}
	if o.err != nil {
		return nil
	}
	return p
}

// begin opens the frame whose line was read.
func (o *outputs) begin() {
	i, n, err := protocol.ParseOutputHeader(o.head)
	o.head = nil
	switch {
	case err != nil:
		o.fail(err)
		return
	case i < o.next || i >= o.tests:
		o.fail(fmt.Errorf("an output frame of test %d, after test %d's, of %d tests", i, o.next-1, o.tests))
		return
	case o.total+n > limits.MaxCheckedTotal:
		o.fail(fmt.Errorf("output frames of more than %d bytes in all", limits.MaxCheckedTotal))
		return
	}
	o.next, o.total, o.left = i+1, o.total+n, n
	if o.w, err = o.sink.Open(i, n); err != nil {
		o.fail(fmt.Errorf("keeping test %d's output: %w", i, err))
		return
	}
	if n == 0 {
		o.end()
	}
}

// end closes the frame that was read whole.
func (o *outputs) end() {
	if err := o.w.Close(); err != nil {
		o.fail(fmt.Errorf("keeping test %d's output: %w", o.next-1, err))
	}
	o.w = nil
}

// fail breaks the stream, closing a frame left open.
func (o *outputs) fail(err error) {
	if o.w != nil {
		_ = o.w.Close()
		o.w = nil
	}
	o.err = errors.Join(errors.New("output frames"), err)
}
