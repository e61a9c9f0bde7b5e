package isolation

import (
	"strings"
	"sync"
)

// stderrWatch keeps the tail of docker's stderr for error messages and
// watches it line by line for "WARNING:", which docker prints when it
// discards a limit it cannot apply (swap accounting, say). The first such
// line is passed to onWarning, which aborts the run: a limit docker did not
// apply is a boundary that does not hold.
type stderrWatch struct {
	mu        sync.Mutex
	tail      []byte
	line      []byte // the current line, up to maxLine bytes
	warning   string
	onWarning func(line string)
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
			s.onWarning(line)
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

// joined is the kept tail on one line: its non-empty lines joined by
// "; ", "" for none.
func (s *stderrWatch) joined() string {
	var lines []string
	for _, l := range strings.Split(s.text(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "; ")
}

// quoted is the kept tail on one line, or "(no stderr)".
func (s *stderrWatch) quoted() string { return orNone(s.joined()) }

// suffix is the kept tail quoted for the end of a message, "" if empty.
func (s *stderrWatch) suffix() string { return docker(s.joined()) }
