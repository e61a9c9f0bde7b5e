package isolation

import (
	"bytes"
	"strings"
	"sync"
)

// boundedBuffer keeps at most limit bytes. Past the limit it records the
// overflow, calls onOverflow once (which kills the run on purpose) and
// keeps accepting writes, so the copying goroutine drains the pipe instead
// of blocking the child.
type boundedBuffer struct {
	mu         sync.Mutex
	buf        bytes.Buffer
	limit      int
	total      int64
	onOverflow func()
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	before := b.total
	b.total += int64(len(p))
	if room := b.limit - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(room, len(p))])
	}
	if before <= int64(b.limit) && b.total > int64(b.limit) && b.onOverflow != nil {
		b.onOverflow()
	}
	return len(p), nil
}

func (b *boundedBuffer) overflowed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total > int64(b.limit)
}

func (b *boundedBuffer) bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Bytes()
}

// stderrWatch keeps the tail of docker's stderr for error messages and
// watches it line by line for "WARNING:", which docker prints when it
// discards a limit it cannot apply (swap accounting, say). The first such
// line calls onWarning, which aborts the run: a limit docker did not apply
// is a boundary that does not hold.
type stderrWatch struct {
	mu        sync.Mutex
	tail      []byte
	line      []byte // the current line, up to maxLine bytes
	warning   string
	onWarning func()
}

const (
	stderrTail = 4 << 10
	maxLine    = 1 << 10
)

func (s *stderrWatch) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tail = append(s.tail, p...)
	if len(s.tail) > stderrTail {
		s.tail = append(s.tail[:0], s.tail[len(s.tail)-stderrTail:]...)
	}
	for _, c := range p {
		if c == '\n' {
			s.endLine()
			continue
		}
		if len(s.line) < maxLine {
			s.line = append(s.line, c)
		}
	}
	return len(p), nil
}

func (s *stderrWatch) endLine() {
	line := strings.TrimSpace(string(s.line))
	s.line = s.line[:0]
	if s.warning == "" && strings.HasPrefix(line, "WARNING:") {
		s.warning = line
		if s.onWarning != nil {
			s.onWarning()
		}
	}
}

// finish checks a last line without a newline and returns the first warning.
func (s *stderrWatch) finish() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endLine()
	return s.warning
}

// text returns the kept tail, trimmed, for quoting in an error.
func (s *stderrWatch) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.TrimSpace(strings.ToValidUTF8(string(s.tail), "\uFFFD"))
}
