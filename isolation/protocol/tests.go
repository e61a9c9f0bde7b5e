package protocol

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// Test is one test of a judge's request: the program runs once with Stdin
// on its standard input, and its standard output is compared with Expect
// (nil: there is nothing to compare with). The bytes travel after the
// request, in test order, each test's stdin then its expected output
// (TestData): the request frame carries their sizes, which EncodeRequest
// sets from the bytes and the runner reads them by (ReadTestData). A
// caller sets Name, Stdin and Expect and leaves the sizes to the wire.
type Test struct {
	// Name names the test in its result: CheckTestName's rules.
	Name string `json:"name"`
	// StdinBytes and ExpectBytes are the sizes of Stdin and Expect as the
	// request frame announces them (ExpectBytes nil: no expected output).
	StdinBytes  int64  `json:"stdin_bytes"`
	ExpectBytes *int64 `json:"expect_bytes,omitempty"`
	// Stdin is the program's standard input in this test.
	Stdin []byte `json:"-"`
	// Expect is the expected standard output; nil: none, so the test
	// has no comparison.
	Expect []byte `json:"-"`
	// OutputBytes is a check's (RoleCheck): the size of the program's
	// output in the test, sent after its expected output.
	OutputBytes *int64 `json:"output_bytes,omitempty"`
}

// Compare modes of a judge's request ("" is CompareLines; a float
// comparison, "float:ABS[:REL]", is CompareFloat's: ParseCompare).
const (
	CompareLines = "lines" // trailing whitespace of each line and trailing empty lines ignored
	CompareExact = "exact" // byte for byte
)

// withSizes is tests with each size set from its bytes, as they go on
// the wire.
func withSizes(tests []Test) []Test {
	out := make([]Test, len(tests))
	for i, t := range tests {
		t.StdinBytes = int64(len(t.Stdin))
		t.ExpectBytes = nil
		if t.Expect != nil {
			n := int64(len(t.Expect))
			t.ExpectBytes = &n
		}
		out[i] = t
	}
	return out
}

// checkTests applies a judge's rules: tests are for an interpreter or a
// compiled program (exec mode), at most limits.MaxTests, each with a
// name (CheckTestName) given once, their data at most
// limits.MaxTestData in all; the request's own stdin is none (each test
// has its own); a compare mode only with tests, and one of the two.
func checkTests(r Request, starlark bool) error {
	if _, err := ParseCompare(r.Compare); err != nil {
		return err
	}
	if r.Tests == nil {
		if r.Compare != "" {
			return errors.New("compare: there are no tests to compare")
		}
		return nil
	}
	switch {
	case starlark:
		return errors.New("tests: for an interpreter or a compiled language (exec mode), not Starlark")
	case len(r.Tests) == 0:
		return errors.New("tests: none given (leave it out for a run without tests)")
	case len(r.Tests) > limits.MaxTests:
		return fmt.Errorf("tests: %d tests, more than the %d allowed", len(r.Tests), limits.MaxTests)
	case r.Stdin != "":
		return errors.New("stdin: a request with tests gives each test its own stdin")
	}
	seen := make(map[string]bool, len(r.Tests))
	var total int64
	for _, t := range r.Tests {
		if err := CheckTestName(t.Name); err != nil {
			return err
		}
		if seen[t.Name] {
			return fmt.Errorf("test %q: given twice", t.Name)
		}
		seen[t.Name] = true
		n, err := t.size()
		if err != nil {
			return err
		}
		if total += n; total > limits.MaxTestData {
			return fmt.Errorf("test %q: its stdin and expected output take the tests' data to %d bytes or more, over the limit of %d",
				t.Name, total, limits.MaxTestData)
		}
	}
	return nil
}

// size is t's data on the wire, its stdin and expected output: the
// bytes' own sizes where they are here (the host's side, which sends
// them so: withSizes), else the sizes the request announced.
func (t Test) size() (int64, error) {
	if t.Stdin != nil || t.Expect != nil {
		return int64(len(t.Stdin) + len(t.Expect)), nil
	}
	n := t.StdinBytes
	if t.ExpectBytes != nil {
		if *t.ExpectBytes < 0 {
			return 0, fmt.Errorf("test %q: expect_bytes must not be negative", t.Name)
		}
		n += *t.ExpectBytes
	}
	if t.StdinBytes < 0 {
		return 0, fmt.Errorf("test %q: stdin_bytes must not be negative", t.Name)
	}
	return n, nil
}

// CheckTestName applies a test name's rules: a name a person reads in a
// result, 1 to limits.MaxTestName bytes of printable UTF-8, without a
// space at either end.
func CheckTestName(name string) error {
	switch {
	case name == "":
		return errors.New("test: a test needs a name")
	case len(name) > limits.MaxTestName:
		return fmt.Errorf("test %.64q: names are at most %d bytes", name, limits.MaxTestName)
	case !utf8.ValidString(name):
		return fmt.Errorf("test %q: the name is not UTF-8", name)
	case strings.TrimSpace(name) != name:
		return fmt.Errorf("test %q: the name starts or ends with a space", name)
	case strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) && r != ' ' }) >= 0:
		return fmt.Errorf("test %q: the name has a control character", name)
	}
	return nil
}

// TestData is what follows the request on the wire: each test's stdin,
// then its expected output, in test order.
func TestData(tests []Test) []byte {
	var n int
	for _, t := range tests {
		n += len(t.Stdin) + len(t.Expect)
	}
	out := make([]byte, 0, n)
	for _, t := range tests {
		out = append(append(out, t.Stdin...), t.Expect...)
	}
	return out
}

// ReadTestData reads from r the bytes the tests' sizes announce (their
// total was checked against limits.MaxTestData when the request was
// decoded), into each test's Stdin and Expect.
func ReadTestData(r io.Reader, tests []Test) error {
	for i := range tests {
		t := &tests[i]
		t.Stdin = make([]byte, t.StdinBytes)
		if _, err := io.ReadFull(r, t.Stdin); err != nil {
			return fmt.Errorf("test %q: reading its stdin (%d bytes): %w", t.Name, t.StdinBytes, err)
		}
		if t.ExpectBytes != nil {
			t.Expect = make([]byte, *t.ExpectBytes)
			if _, err := io.ReadFull(r, t.Expect); err != nil {
				return fmt.Errorf("test %q: reading its expected output (%d bytes): %w", t.Name, *t.ExpectBytes, err)
			}
		}
	}
	return nil
}
