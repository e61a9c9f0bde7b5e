package cli

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// inputLine is one line of a batch's input, without its newline: at most
// limits.MaxLineBytes+1 bytes of it, so a longer line is held only in
// part and the decoder refuses it as too long. err is the read's error
// after it (io.EOF at the end).
type inputLine struct {
	raw []byte
	err error
}

// lineReader reads the input by a goroutine of its own, so a signal is
// seen even while a read blocks (a pipe that stays open).
type lineReader struct {
	lines    chan inputLine
	stop     chan struct{}
	finished chan struct{}

	mu      sync.Mutex
	stopped bool // close was called: the goroutine must end
	inRead  bool // the goroutine is inside a read of the input
}

func newLineReader(ctx context.Context, in io.Reader) *lineReader {
	lr := &lineReader{lines: make(chan inputLine), stop: make(chan struct{}), finished: make(chan struct{})}
	go lr.loop(ctx, bufio.NewReaderSize(in, 64<<10))
	return lr
}

func (lr *lineReader) loop(ctx context.Context, r *bufio.Reader) {
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
		case lr.lines <- inputLine{raw, err}:
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

// close returns once the goroutine has ended, unless it is inside a read
// of the input, which nothing can interrupt (a pipe that stays open):
// then it ends at that read's return, holding nothing but the input.
func (lr *lineReader) close() {
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

// lineError is a refused line's message, naming its line. A line that
// ends inside its JSON object (a truncated write, a request split over two
// lines) says so, where the decoder's own word is only "unexpected EOF";
// a line over the limit was cut by the reader and keeps its own message.
func lineError(line int, err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("line %d: not complete JSON: the line ends before its object does (cut short?)", line)
	}
	return fmt.Errorf("line %d: %w", line, err)
}

// idLines remembers the line each id was first seen on: an id names its
// result for a script, above all as results come in completion order, so
// a second line with an id already taken is refused.
type idLines map[[sha256.Size]byte]int

// see records id's line, or, when an earlier line had the same id,
// returns the refusal. No id (absent or null) never repeats.
func (ids idLines) see(id json.RawMessage, line int) error {
	key, ok := idKey(id)
	if !ok {
		return nil
	}
	if first, seen := ids[key]; seen {
		return fmt.Errorf("id %s repeats line %d's: each id must name one request", shortID(id), first)
	}
	ids[key] = line
	return nil
}

// idKey is an id's identity, hashed so a long one costs 32 bytes: a
// string by its decoded text, a number by its value (1, 1.0 and 1e0 are
// one id, as they are to most scripts that parse them), the text as
// written where the value over- or underflows.
func idKey(id json.RawMessage) (key [sha256.Size]byte, ok bool) {
	if len(id) == 0 || string(id) == "null" {
		return key, false
	}
	text := "n" + string(id)
	if id[0] == '"' {
		var s string
		if json.Unmarshal(id, &s) == nil {
			text = "s" + s
		}
	} else if f, _, err := big.ParseFloat(string(id), 10, 256, big.ToNearestEven); err == nil && !f.IsInf() {
		mantissa, _, _ := strings.Cut(strings.ToLower(string(id)), "e")
		switch {
		case f.Sign() != 0:
			text = "n" + f.Text('g', -1)
		case strings.Trim(mantissa, "-0.") == "": // a zero, -0 too
			text = "n0"
		}
	}
	return sha256.Sum256([]byte(text)), true
}

// shortID is id as JSON, cut to a readable length for a message.
func shortID(id json.RawMessage) string {
	const maxShown = 40
	s := string(id)
	if len(s) <= maxShown {
		return s
	}
	cut := maxShown
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Bounds of counting a file's requests for the progress's total: past
// either, the total is not shown, rather than the first run waiting on a
// read of the whole file.
const (
	maxCountedLines = 1_000_000
	maxCountedBytes = 256 << 20
)

// countRequests is the number of non-blank lines in f when it is a
// regular file (0, unknown, otherwise or past the bounds), read through
// its own reader so f's offset stays at the start.
func countRequests(f *os.File) int {
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxCountedBytes {
		return 0
	}
	r := bufio.NewReaderSize(io.NewSectionReader(f, 0, fi.Size()), 64<<10)
	n, blank := 0, true
	for {
		chunk, err := r.ReadSlice('\n')
		if len(bytes.TrimSpace(chunk)) > 0 {
			blank = false
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if !blank {
			n++
		}
		blank = true
		if err != nil || n > maxCountedLines {
			break
		}
	}
	if n > maxCountedLines {
		return 0
	}
	return n
}
