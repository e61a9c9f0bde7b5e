package batchline

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// Line is one line of a batch's input, without its newline: at most
// limits.MaxLineBytes+1 bytes of it, so a longer line is held only in
// part and the decoder refuses it as too long. err is the read's error
// after it (io.EOF at the end).
type Line struct {
	Raw []byte
	Err error
}

// Reader reads the input by a goroutine of its own, so a signal is
// seen even while a read blocks (a pipe that stays open).
type Reader struct {
	Lines    chan Line
	stop     chan struct{}
	finished chan struct{}

	mu      sync.Mutex
	stopped bool // close was called: the goroutine must end
	inRead  bool // the goroutine is inside a read of the input
}

func NewReader(ctx context.Context, in io.Reader) *Reader {
	lr := &Reader{Lines: make(chan Line), stop: make(chan struct{}), finished: make(chan struct{})}
	go lr.loop(ctx, bufio.NewReaderSize(in, 64<<10))
	return lr
}

func (lr *Reader) loop(ctx context.Context, r *bufio.Reader) {
	defer close(lr.finished)
	for {
		lr.mu.Lock()
		if lr.stopped {
			lr.mu.Unlock()
			return
		}
		lr.inRead = true
		lr.mu.Unlock()
		raw, err := readLine(r)
		lr.mu.Lock()
		lr.inRead = false
		lr.mu.Unlock()
		select {
		case lr.Lines <- Line{raw, err}:
		case <-ctx.Done():
			return
		case <-lr.stop:
			return
		}
		if err != nil {
			return
		}
	}
}

// Close returns once the goroutine has ended, unless it is inside a read
// of the input, which nothing can interrupt (a pipe that stays open):
// then it ends at that read's return, holding nothing but the input.
func (lr *Reader) Close() {
	lr.mu.Lock()
	lr.stopped = true
	reading := lr.inRead
	lr.mu.Unlock()
	close(lr.stop)
	if !reading {
		<-lr.finished
	}
}

// readLine reads one line without its newline (or CRLF), keeping at most
// limits.MaxLineBytes+1 bytes of it.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if keep := limits.MaxLineBytes + 2 - len(line); keep > 0 { // +1 for the newline
			line = append(line, chunk[:min(len(chunk), keep)]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		return line[:min(len(line), limits.MaxLineBytes+1)], err
	}
}

// Refusal is a refused line's message, naming its line. A line that
// ends inside its JSON object (a truncated write, a request split over two
// lines) says so, where the decoder's own word is only "unexpected EOF";
// a line over the limit was cut by the reader and keeps its own message.
func Refusal(line int, err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("line %d: not complete JSON: the line ends before its object does (cut short?)", line)
	}
	return fmt.Errorf("line %d: %w", line, err)
}
