// Package judge compares a program's standard output with a test's
// expected output while the output is being written. The runner keeps only
// a bounded head and tail of what a program prints, but a test may expect
// megabytes, so the verdict cannot be taken from the kept copy: a Matcher
// sits beside the capture as one more io.Writer and sees every byte once.
//
// The output is hostile. Whatever it is, a Matcher's memory beyond the
// expected output it was given is constant, and once a difference is
// certain it does no more work.
package judge

import (
	"bytes"
	"fmt"
)

// Mode is how output is compared with the expected output.
type Mode string

const (
	// Lines compares line by line, split at '\n'. Each line's trailing
	// whitespace (' ', '\t', '\r', '\v', '\f') is ignored, and so are the
	// lines at the end of either side that are empty once stripped, which
	// also makes a missing final newline irrelevant. Leading and inner
	// whitespace and inner empty lines count. It is the default.
	Lines Mode = "lines"
	// Exact compares byte for byte: equal bytes, equal length.
	Exact Mode = "exact"
)

// CheckMode reports an error naming the modes when m is not one of them.
// The empty mode is Lines.
func CheckMode(m Mode) error {
	switch m {
	case "", Lines, Exact:
		return nil
	}
	return fmt.Errorf("judge: unknown output mode %q (want %q or %q)", m, Lines, Exact)
}

// space is the whitespace a line may end with in Lines mode.
const space = " \t\r\v\f"

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\r' || b == '\v' || b == '\f'
}

// Matcher is an io.Writer that compares what is written to it with an
// expected output, under a Mode. Write the whole output, then ask Match
// and Line. A Matcher is not safe for concurrent use.
//
// Line reports where the first difference is, as a 1-based line number of
// the output (line n begins after the (n-1)th '\n'):
//
//   - Exact: the line holding the first byte at which the output and the
//     expected output differ. When one is a prefix of the other, that is
//     the first byte past the shorter one: the line of the first extra
//     byte, or, for output that ends early, the line the output stopped on
//     (1 + the number of '\n' written).
//   - Lines: let O and E be the two sides' lines, numbered from 1, each
//     stripped of its trailing whitespace, with the empty lines at the end
//     dropped. Line is the first n at which O[n] and E[n] differ or only
//     one of them exists: for extra output, the first extra line that is not ignored (an empty
//     line followed by text counts); for output that ends early, the line
//     after the last output line that is not ignored, the first missing
//     line.
type Matcher struct {
	mode Mode
	// exp is expect in Exact mode. In Lines mode it is expect normalized:
	// its lines stripped, the empty ones at the end dropped, joined by
	// '\n' with no final '\n'. An empty line is then a lone '\n' and a line
	// ends at a '\n' or at len(exp), which lets a blank run and the end of
	// a line be checked against exp directly.
	exp []byte

	bad bool // a difference is certain; nothing more is done

	// Exact mode: the bytes matched, or once bad the offset of the first
	// difference. The output up to it is exp up to it, so the line is
	// counted in exp, once, when asked.
	off int

	// Lines mode: the current output line, or once bad the line of the
	// first difference.
	line int64

	// Lines mode. All positions are offsets in exp.
	//
	// Output lines that are empty once stripped (blank) may be trailing,
	// and so ignored, or inner, and so matched with empty expected lines:
	// which depends on what follows. So they are only counted (blanks),
	// along with whether exp, at pos, has at least that many empty lines
	// (blankOK). The next non-blank line settles the run.
	//
	// Likewise whitespace in a line may be trailing or inner. It is matched
	// tentatively (q, wsOK) and only committed (p) when a non-space byte
	// follows, so nothing of the output is ever kept: it is either compared
	// with exp at once or known not to match exp.
	end      int   // pos when all of exp's lines are matched: len(exp)+1, or 0 if exp has no line
	pos      int   // start of the first expected line not yet matched
	blanks   int64 // blank output lines since the last non-blank one
	blankOK  bool  // exp[pos:pos+blanks] are all '\n'
	nonBlank bool  // the current output line has a non-space byte
	p        int   // in the current line's target: end of the committed match
	q        int   // p plus the pending whitespace, if wsOK
	wsOK     bool  // the pending whitespace (and leading whitespace) matches exp[p:q]
}

// NewMatcher returns a Matcher of output against expect under mode; the
// empty mode is Lines. It panics if CheckMode(mode) fails: the mode is the
// caller's to validate. The Matcher keeps expect (Exact) or a normalized
// copy no longer than it (Lines): expect must not be modified while the
// Matcher is in use.
func NewMatcher(expect []byte, mode Mode) *Matcher {
	if err := CheckMode(mode); err != nil {
		panic(err)
	}
	if mode == Exact {
		return &Matcher{mode: Exact, exp: expect}
	}
	m := &Matcher{mode: Lines, exp: normalize(expect), line: 1, blankOK: true, wsOK: true}
	if len(m.exp) > 0 {
		m.end = len(m.exp) + 1
	}
	return m
}

// normalize strips each line of b of its trailing whitespace, drops the
// empty lines at the end and joins the rest with '\n', without a final one.
func normalize(b []byte) []byte {
	out := make([]byte, 0, len(b))
	keep := 0 // len(out) up to the last non-empty line
	for first := true; ; first = false {
		line, rest, found := bytes.Cut(b, []byte{'\n'})
		line = bytes.TrimRight(line, space)
		if !first {
			out = append(out, '\n')
		}
		out = append(out, line...)
		if len(line) > 0 {
			keep = len(out)
		}
		if !found {
			return out[:keep]
		}
		b = rest
	}
}

// Write compares p with the expected output that follows what was written
// before. It always returns len(p), nil: a Matcher never blocks or fails
// the writer, which must be drained whatever it prints.
func (m *Matcher) Write(p []byte) (int, error) {
	if m.bad {
		return len(p), nil
	}
	if m.mode == Exact {
		m.writeExact(p)
	} else {
		m.writeLines(p)
	}
	return len(p), nil
}

func (m *Matcher) writeExact(p []byte) {
	want := m.exp[m.off:]
	n := min(len(p), len(want))
	if !bytes.Equal(p[:n], want[:n]) {
		i := 0
		for p[i] == want[i] {
			i++
		}
		m.bad, m.off = true, m.off+i
		return
	}
	m.off += n
	if len(p) > n {
		m.bad = true // extra output: the difference is at len(exp)
	}
}

func (m *Matcher) writeLines(p []byte) {
	exp := m.exp
	for _, b := range p {
		switch {
		case b == '\n':
			if m.nonBlank {
				// The stripped line must be the whole target line.
				if m.p < len(exp) && exp[m.p] != '\n' {
					m.fail(m.line)
					return
				}
				m.pos, m.blanks, m.blankOK = m.p+1, 0, true
			} else {
				if m.blankOK {
					i := m.pos + int(m.blanks) // blankOK bounds it by len(exp)
					m.blankOK = i < len(exp) && exp[i] == '\n'
				}
				m.blanks++
			}
			m.line++
			m.nonBlank = false
			// If this line turns out non-blank, the run before it must be
			// all of exp's empty lines at pos, so its target starts after
			// them; if the run is already too long, leading whitespace
			// cannot match anything that would be accepted.
			m.wsOK = m.blankOK
			if m.blankOK {
				m.p = m.pos + int(m.blanks)
				m.q = m.p
			}
		case isSpace(b):
			// ws bytes are never '\n', so equality also keeps q in the line.
			if m.wsOK && m.q < len(exp) && exp[m.q] == b {
				m.q++
			} else {
				m.wsOK = false
			}
		default:
			if !m.nonBlank {
				if !m.settle() {
					return
				}
				m.nonBlank = true
			}
			if !m.wsOK || m.q >= len(exp) || exp[m.q] != b {
				m.fail(m.line)
				return
			}
			m.q++
			m.p = m.q
		}
	}
}

// settle is called at the first non-space byte of a line, which ends the
// run of blank lines before it. That run must be exactly the empty lines
// exp has at pos, and a non-empty expected line must follow; otherwise
// settle records where the two first differ and reports false.
func (m *Matcher) settle() bool {
	n := m.blanks
	start := m.line - n // the run's first line
	switch {
	case m.pos >= m.end:
		// Nothing more is expected: the run's first line, blank or this
		// one, is the first extra line that is not ignored.
		m.fail(start)
	case !m.blankOK:
		// The run is longer than exp's empty lines at pos, k of them: the
		// (k+1)th blank line stands where a non-empty line is expected.
		k := int64(0)
		for i := m.pos; i < len(m.exp) && m.exp[i] == '\n'; i++ {
			k++
		}
		m.fail(start + k)
	case m.exp[m.pos+int(n)] == '\n':
		// The run is shorter: this line stands where an empty one is
		// expected. (An expected line after the run exists: exp has no
		// empty lines at its end.)
		m.fail(m.line)
	default:
		return true
	}
	return false
}

func (m *Matcher) fail(line int64) { m.bad, m.line = true, line }

// Match reports whether the output written so far matches the expected
// output. It is meant for after the last Write, but does not change the
// Matcher: it answers as if the output ended there.
func (m *Matcher) Match() bool { return m.Line() == 0 }

// Line returns 0 if the output written so far matches the expected output,
// otherwise the 1-based line of the output where they first differ, as
// described on Matcher. Like Match, it answers as if the output ended
// there.
func (m *Matcher) Line() int64 {
	if m.mode == Exact {
		if !m.bad && m.off == len(m.exp) {
			return 0
		}
		// Either way, off is where they differ (for output that ends
		// early, where it ended) and the output before it is exp's.
		return 1 + int64(bytes.Count(m.exp[:m.off], []byte{'\n'}))
	}
	if m.bad {
		return m.line
	}
	pos, last := m.pos, m.line-m.blanks-1 // last: the last non-ignored line
	if m.nonBlank {
		// A final line without '\n': pending whitespace is trailing.
		if m.p < len(m.exp) && m.exp[m.p] != '\n' {
			return m.line
		}
		pos, last = m.p+1, m.line
	}
	if pos < m.end {
		return last + 1 // the first missing line
	}
	return 0
}
