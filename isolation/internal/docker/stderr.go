package docker

import (
	"strings"
	"sync"
)

// StderrWatch keeps the tail of docker's stderr for error messages and
// watches it line by line for "WARNING:", which docker prints when it
// discards a limit it cannot apply (swap accounting, say). The first such
// line is passed to OnWarning, which aborts the run: a limit docker did not
// apply is a boundary that does not hold.
type StderrWatch struct {
	// OnWarning, if set, is called with the first WARNING line, with the
	// watch locked. It must not call the watch.
	OnWarning func(line string)

	mu      sync.Mutex
	tail    []byte
	line    []byte // the current line, up to maxLine bytes
	warning string
}

const (
	stderrTail = 4 << 10
	maxLine    = 1 << 10
)

// Write keeps p's tail and watches its lines; it never fails.
func (s *StderrWatch) Write(p []byte) (int, error) {
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

func (s *StderrWatch) endLine() {
	line := strings.TrimSpace(string(s.line))
	s.line = s.line[:0]
	if s.warning == "" && strings.HasPrefix(line, "WARNING:") {
		s.warning = line
		if s.OnWarning != nil {
			s.OnWarning(line)
		}
	}
}

// Finish checks a last line without a newline and returns the first warning.
func (s *StderrWatch) Finish() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endLine()
	return s.warning
}

// Text returns the kept tail, trimmed, for quoting in an error.
func (s *StderrWatch) Text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.TrimSpace(strings.ToValidUTF8(string(s.tail), "\uFFFD"))
}

// Joined is the kept tail on one line: its non-empty lines joined by
// "; ", "" for none.
func (s *StderrWatch) Joined() string {
	var lines []string
	for _, l := range strings.Split(s.Text(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "; ")
}

// Quoted is the kept tail on one line, or "(unknown)" when there is none.
func (s *StderrWatch) Quoted() string {
	if j := s.Joined(); j != "" {
		return j
	}
	return "(unknown)"
}
