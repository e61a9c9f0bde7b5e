package cli

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// testsOptions make a run a judge's: --test IN[=OUT] (repeatable) and
// --tests DIR, and how outputs are compared (--compare).
type testsOptions struct {
	tests   cli.StringSlice
	dir     string
	compare oneOf
	// checker and checkerImage: --checker FILE and --checker-image ID.
	checker, checkerImage string
	// interactor and interactorImage: --interactor FILE and
	// --interactor-image ID.
	interactor, interactorImage string
}

func (o *testsOptions) flags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "test", Usage: "run the program once more on a test: `SPEC` is IN[=OUT], the test's stdin read from the " +
			"file IN and its expected stdout from OUT; its name is IN's base name without .in; repeatable",
			TakesFile: true, Destination: &o.tests},
		&cli.StringFlag{Name: "tests", Usage: "a test for every `DIR`/NAME.in, in name order (numbers by value), DIR/NAME.out its " +
			"expected stdout when there is one", TakesFile: true, Destination: &o.dir},
		compareFlag(&o.compare),
		&cli.StringFlag{Name: "checker", Usage: "grade each test with the checker program whose source is `FILE` (testlib's " +
			"convention: FILE INPUT OUTPUT ANSWER, exit 0 ok, 1 wrong_answer, 2 presentation_error, 7 points, anything else " +
			"judge_failure), run in a container of its own on --checker-image once the program's is gone",
			TakesFile: true, Destination: &o.checker},
		&cli.StringFlag{Name: "checker-image", Usage: "the checker's image: an immutable `ID` (sha256:...) of an image whose " +
			"language runs --checker's source (the cpp image for a C++ checker, python's for a Python one)", Destination: &o.checkerImage},
		&cli.StringFlag{Name: "interactor", Usage: "grade each test with the interactor program whose source is `FILE`, run as " +
			"FILE INPUT ANSWER (the test's .in and .out, which the program never sees) at the same time as the program, in a " +
			"container of its own on --interactor-image: its stdout is the program's stdin and the program's stdout its stdin; " +
			"its exit grades as a checker's does",
			TakesFile: true, Destination: &o.interactor},
		&cli.StringFlag{Name: "interactor-image", Usage: "the interactor's image: an immutable `ID` (sha256:...) of an image " +
			"whose language runs --interactor's source", Destination: &o.interactorImage},
	}
}

// compareFlag is --compare: lines or exact, or float:ABS[:REL].
func compareFlag(dst *oneOf) cli.Flag {
	f := enumFlag(dst, "compare", "how a test's stdout is compared with its expected output: `MODE`, lines (each line's "+
		"trailing spaces, tabs and CRs and the trailing empty lines ignored), exact (byte for byte) or float:ABS[:REL] "+
		"(token by token, lines as lines: two integers exactly; another number within ABS, or REL times the expected one, of "+
		"it, each number as the float64 it rounds to, so digits past its 15 to 17 significant ones do not count; NaN and "+
		"infinities only themselves; any other token exactly)", protocol.CompareLines, protocol.CompareExact)
	dst.form = "float:ABS[:REL]"
	f.Usage = f.Usage[:strings.LastIndex(f.Usage, ": ")] + ": " + orList([]string{protocol.CompareLines, protocol.CompareExact, dst.form})
	dst.check = func(s string) error {
		c, err := protocol.ParseCompare(s)
		switch {
		case errors.Unwrap(err) != nil:
			return errors.Unwrap(err) // why a float comparison is refused; the refusal names the value
		case err != nil:
			return err
		case c.Mode != protocol.CompareFloat:
			return errors.New("not a float comparison")
		}
		return nil
	}
	return f
}

// read reads the tests the flags name into req, in order: --test's, then
// --tests'. Their data is bounded as it is read: past limits.MaxTestData
// in all, the test that passes it is named and nothing starts.
func (o *testsOptions) read(c *cli.Context, req *isolation.Request) error {
	if c.IsSet("compare") && !c.IsSet("test") && !c.IsSet("tests") {
		return rejectf("--compare: there are no tests to compare (give --test or --tests)")
	}
	var specs [][2]string // in and out paths; out "" for none
	for _, spec := range o.tests.Value() {
		in, out, _ := strings.Cut(spec, "=")
		if in == "" {
			return rejectf("--test %q: must be IN[=OUT], IN the test's stdin", spec)
		}
		specs = append(specs, [2]string{in, out})
	}
	if c.IsSet("tests") {
		found, err := testDir(o.dir)
		if err != nil {
			return err
		}
		specs = append(specs, found...)
	}
	left := int64(limits.MaxTestData)
	for _, spec := range specs {
		t := isolation.Test{Name: strings.TrimSuffix(filepath.Base(spec[0]), ".in")}
		if err := protocol.CheckTestName(t.Name); err != nil {
			return rejectf("--test %s: %v", spec[0], err)
		}
		var err error
		if t.Stdin, err = readTestFile(t.Name, spec[0], &left); err == nil && spec[1] != "" {
			t.Expect, err = readTestFile(t.Name, spec[1], &left)
		}
		if err != nil {
			return err
		}
		req.Tests = append(req.Tests, t)
	}
	if c.IsSet("compare") {
		req.Compare = o.compare.value
	}
	if err := o.readChecker(c, req); err != nil {
		return err
	}
	return o.readInteractor(c, req)
}

// readChecker reads --checker's source into req, with its image; the
// library holds the rest to the checker's rules.
func (o *testsOptions) readChecker(c *cli.Context, req *isolation.Request) error {
	src, ok, err := readGrader(c, req, "checker", o.checker)
	if ok {
		req.Grader = &protocol.Checker{Source: src, Image: o.checkerImage}
	}
	return err
}

// readInteractor reads --interactor's source into req, with its image;
// the library holds the rest to the interactor's rules.
func (o *testsOptions) readInteractor(c *cli.Context, req *isolation.Request) error {
	if c.IsSet("interactor") && (c.IsSet("checker") || c.IsSet("compare")) {
		return rejectf("--interactor: the interactor grades; give no --checker or --compare beside it")
	}
	src, ok, err := readGrader(c, req, "interactor", o.interactor)
	if ok {
		req.Grader = &protocol.Interactor{Source: src, Image: o.interactorImage}
	}
	return err
}

// readGrader reads the source of --NAME (a checker, an interactor), at
// path; ok is false when the flag is not given. --NAME-image must go
// with it, and tests to grade.
func readGrader(c *cli.Context, req *isolation.Request, name, path string) (src string, ok bool, err error) {
	switch {
	case !c.IsSet(name) && c.IsSet(name+"-image"):
		return "", false, rejectf("--%s-image: there is no --%s to run on it", name, name)
	case !c.IsSet(name):
		return "", false, nil
	case req.Tests == nil:
		return "", false, rejectf("--%s: there are no tests to grade (give --test or --tests)", name)
	case !c.IsSet(name + "-image"):
		return "", false, rejectf("--%s: needs --%s-image, the image whose language runs it", name, name)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", false, rejectf("--%s: %v", name, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limits.MaxRequestBytes+1))
	switch {
	case err != nil:
		return "", false, rejectf("--%s: %s: %v", name, path, err)
	case len(b) > limits.MaxRequestBytes:
		return "", false, rejectf("--%s: %s is over the %d bytes a source may take", name, path, limits.MaxRequestBytes)
	}
	return string(b), true, nil
}

// testDir lists dir's tests: every NAME.in, in name order, numbers by
// value (2 before 10), with NAME.out when it is there.
func testDir(dir string) ([][2]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, rejectf("--tests: %v", err)
	}
	var names []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".in"); ok && name != "" {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil, rejectf("--tests %s: no NAME.in file in it", dir)
	}
	slices.SortFunc(names, byNameOrNumber)
	specs := make([][2]string, len(names))
	for i, name := range names {
		specs[i][0] = filepath.Join(dir, name+".in")
		out := filepath.Join(dir, name+".out")
		if _, err := os.Stat(out); err == nil {
			specs[i][1] = out
		}
	}
	return specs, nil
}

// byNameOrNumber orders two names by value when both are whole numbers,
// else as strings.
func byNameOrNumber(a, b string) int {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	if errA == nil && errB == nil && x != y {
		return cmp.Compare(x, y)
	}
	return strings.Compare(a, b)
}

// readTestFile reads a test's file within what is left of the bound on
// the tests' data, refusing it past the bound, naming the test.
func readTestFile(name, path string, left *int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, rejectf("test %q: %v", name, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, *left+1))
	switch {
	case err != nil:
		return nil, rejectf("test %q: %s: %v", name, path, err)
	case int64(len(b)) > *left:
		return nil, rejectf("test %q: %s takes the tests' data past its limit of %d bytes (stdin and expected outputs of all tests)",
			name, path, limits.MaxTestData)
	}
	*left -= int64(len(b))
	if b == nil {
		b = []byte{} // an empty file is an empty stream, not none
	}
	return b, nil
}

// testSummary is the line --format text prints for a judged run.
func testSummary(res isolation.Result) string {
	var b strings.Builder
	for _, t := range res.Tests {
		fmt.Fprintf(&b, "test %s: %s", t.Name, t.Verdict)
		switch {
		case t.Match != nil && !*t.Match:
			fmt.Fprintf(&b, " (line %d differs)", t.Line)
		case t.Error != nil && t.Verdict != protocol.OK:
			fmt.Fprintf(&b, " (%s)", t.Error.Message)
		}
		fmt.Fprintf(&b, ", %d ms\n", t.WallMS)
	}
	return b.String()
}
