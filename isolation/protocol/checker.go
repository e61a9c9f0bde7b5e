package protocol

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// Checker is a judge's checker program, testlib's convention: a trusted
// program that grades each test as `checker INPUT OUTPUT ANSWER` (three
// file paths: the test's stdin, the program's whole stdout, the expected
// output) and says so by its exit: 0 accepted, 1 wrong answer, 2
// presentation error, 7 points (the score the first number it writes),
// anything else (3, testlib's own failure, a signal, a limit) a failure
// of the judge, never the program's. It runs in a container of its own,
// on Image, a sha256 ID of an image whose language compiles or runs
// Source (a C++ checker on the cpp image, a Python one on python's), once
// the program's container is gone: the program reaches it only through
// its output, which the host hands over as bytes, never as a path. The
// host side only: it never goes on the wire to the program. A Grader.
type Checker struct {
	Source string `json:"-"`
	Image  string `json:"-"`
}

// The checker's exits, testlib's.
const (
	CheckAccepted          = 0
	CheckWrongAnswer       = 1
	CheckPresentationError = 2
	CheckFailed            = 3
	CheckPoints            = 7
)

// An output frame: the stdout of a test of a checked request (its
// frame's role RoleChecked), which the runner writes to its own stdout
// after the test's processes are all gone and before its response: a
// line of outputPrefix, the test's index and the byte count, then the
// bytes.
// No response begins with '=': a response is a JSON object.
const outputPrefix = "=out "

// maxOutputHeader bounds an output frame's line, its newline included:
// the prefix, two numbers and their space.
const maxOutputHeader = len(outputPrefix) + 20 + 1 + 20 + 1

// OutputHeader is the line that begins test i's output frame of n bytes.
func OutputHeader(i int, n int64) []byte {
	return []byte(outputPrefix + strconv.Itoa(i) + " " + strconv.FormatInt(n, 10) + "\n")
}

// ErrOutputHeader: the runner wrote a line in place of an output frame's
// that is none.
var ErrOutputHeader = errors.New("an output frame's line that is none")

// ParseOutputHeader reads the line of an output frame, without its
// newline (at most MaxOutputHeader bytes of it): the test's index and the
// frame's byte count, at most limits.MaxCheckedOutput.
func ParseOutputHeader(line []byte) (i int, n int64, err error) {
	rest, ok := bytes.CutPrefix(line, []byte(outputPrefix))
	a, b, two := bytes.Cut(rest, []byte(" "))
	if !ok || !two {
		return 0, 0, fmt.Errorf("%w: %.40q", ErrOutputHeader, line)
	}
	i, err1 := strconv.Atoi(string(a))
	n, err2 := strconv.ParseInt(string(b), 10, 64)
	switch {
	case err1 != nil || err2 != nil || i < 0 || n < 0 || string(a) != strconv.Itoa(i) || string(b) != strconv.FormatInt(n, 10):
		return 0, 0, fmt.Errorf("%w: %.40q", ErrOutputHeader, line)
	case n > limits.MaxCheckedOutput:
		return 0, 0, fmt.Errorf("an output frame of %d bytes, over the %d a checker is given", n, limits.MaxCheckedOutput)
	}
	return i, n, nil
}

// MaxOutputHeader is the longest line of an output frame.
const MaxOutputHeader = maxOutputHeader

// IsOutputFrame reports whether b, the first byte of what the runner
// writes after a test or the response, begins an output frame.
func IsOutputFrame(b byte) bool { return b == outputPrefix[0] }

// checkChecked applies the rules of a checked frame and of a check:
// either needs tests; a checked one compares nothing itself (its tests'
// outputs go to the checker); a check gives each test the program's
// output (OutputBytes), at most limits.MaxCheckedOutput, and no other
// frame gives one.
func checkChecked(f Frame) error {
	checker := f.role == RoleChecked || f.role == RoleCheck
	switch {
	case checker && f.Tests == nil:
		return errors.New("checker: a checker grades tests, and there are none")
	case checker && f.Compare != "":
		return errors.New("compare: with a checker, the checker compares")
	}
	var total int64
	for _, t := range f.Tests {
		switch {
		case t.OutputBytes != nil && f.role != RoleCheck:
			return fmt.Errorf("test %q: output_bytes is a check's, of the program's output", t.Name)
		case t.OutputBytes == nil && f.role == RoleCheck:
			return fmt.Errorf("test %q: a check needs the program's output (output_bytes)", t.Name)
		case t.OutputBytes != nil && (*t.OutputBytes < 0 || *t.OutputBytes > limits.MaxCheckedOutput):
			return fmt.Errorf("test %q: output_bytes %d is not within 0 and %d", t.Name, *t.OutputBytes, limits.MaxCheckedOutput)
		}
		if t.OutputBytes != nil {
			if total += *t.OutputBytes; total > limits.MaxCheckedTotal {
				return fmt.Errorf("test %q: the outputs to check come to %d bytes, over the %d allowed", t.Name, total, limits.MaxCheckedTotal)
			}
		}
	}
	return nil
}
