package cli

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// TestTestsDirInNameOrder: --tests takes every NAME.in, numbers by value
// (2 before 10), NAME.out beside it when there is one.
func TestTestsDirInNameOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"10.in", "10.out", "2.in", "2.out", "1.in", "b.in", "a.in", "a.out", "notes.txt", ".in"} {
		assert.NilError(t, os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644))
	}
	specs, err := testDir(dir)
	assert.NilError(t, err)
	var names, outs []string
	for _, s := range specs {
		names, outs = append(names, filepath.Base(s[0])), append(outs, filepath.Base(s[1]))
	}
	assert.DeepEqual(t, names, []string{"1.in", "2.in", "10.in", "a.in", "b.in"})
	assert.DeepEqual(t, outs, []string{".", "2.out", "10.out", "a.out", "."})
	names = []string{"10", "9", "b", "1", "a", "01"}
	slices.SortFunc(names, byNameOrNumber)
	assert.DeepEqual(t, names, []string{"01", "1", "9", "10", "a", "b"})

	_, err = testDir(t.TempDir())
	assert.ErrorContains(t, err, "no NAME.in file in it")
}

// TestTestsAreRefusedBeforeAnythingStarts: a test's data past the bound,
// a missing file, --compare without tests, tests with --stdin: each
// refused (exit 2) naming what is wrong, nothing started
// (the client would be a docker that does not exist).
func TestTestsAreRefusedBeforeAnythingStarts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, size int) string {
		p := filepath.Join(dir, name)
		assert.NilError(t, os.WriteFile(p, make([]byte, size), 0o644))
		return p
	}
	small, big := write("1.in", 10), write("2.in", limits.MaxTestData)
	none := "/nonexistent/docker"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--test", small, "--test", big}, `test "2": ` + big + ` takes the tests' data past its limit of 16777216 bytes`},
		{[]string{"--test", filepath.Join(dir, "3.in")}, `test "3": open `},
		{[]string{"--test", "=x"}, `--test "=x": must be IN[=OUT], IN the test's stdin`},
		{[]string{"--compare", "exact"}, "--compare: there are no tests to compare (give --test or --tests)"},
		{[]string{"--compare", "fuzzy", "--test", small}, "--compare: must be lines, exact or float:ABS[:REL]"},
		{[]string{"--compare", "float:1e-6:-1", "--test", small}, `--compare: REL must not be negative (got "float:1e-6:-1")`},
		{[]string{"--test", small, "--stdin", small, "--", "python3", "-"}, "stdin: a request with tests gives each test its own stdin"},
		{[]string{"--test", small, "--test", small, "--", "python3", "-"}, `test "1": given twice`},
		{[]string{"--tests", filepath.Join(dir, "missing"), "--", "python3", "-"}, "--tests: open "},
	} {
		args := append([]string{"run", "--image", testImage, "--cli", none, "--code", "1"}, tc.args...)
		code, out, errOut := runCLI(t, "", args...)
		assert.Check(t, is.Equal(code, 2), "%q: %s", tc.args, errOut)
		assertRejectedJSON(t, out)
		assert.Check(t, is.Contains(errOut, tc.want), "%q", tc.args)
	}
}
