package tests

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestEveryRunRunsItsSource: a command after -- that runs code of its own
// (python3 -c, -m) would take the source's path as one more argument and
// the source would silently never run: it is refused before anything
// starts, as a run with no source is. A command that reads a program file
// runs the source, its path last where it has no "-".
func TestEveryRunRunsItsSource(t *testing.T) {
	needEngine(t)
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--code", `print("src")`, "--", "python3", "-c", "print(1)"},
			`exec: python3 -c runs the code given to -c, not the source: every run runs its source`},
		{[]string{"--code", `print("src")`, "--", "python3", "-m", "pytest"}, `exec: python3 -m runs the code given to -m`},
		{[]string{"--", "python3", "-c", "print(1)"}, "one of --code or --file is required"},
	} {
		r := tool(t, nil, "", append([]string{"run", "--image", pythonImage}, tc.args...)...)
		assert.Check(t, is.Equal(r.code, 2), "%q: %s", tc.args, r.stderr)
		assert.Check(t, is.Equal(r.res.Verdict, "rejected"), "%q", tc.args)
		assert.Check(t, is.Contains(r.stderr, tc.want), "%q", tc.args)
		assert.Check(t, is.Equal(r.res.Container, ""), "nothing started")
	}
	r := tool(t, nil, "", "run", "--image", pythonImage, "--code", `import sys; print("src", sys.argv[1:])`, "--", "python3", "-I")
	assert.Equal(t, r.code, 0, r.stderr)
	assert.Check(t, is.Equal(r.res.Output, "src []\n"), "the path is python3's last argument, its script")
}

// TestOutputThatIsNotUTF8IsMarked: bytes that are not UTF-8 become U+FFFD,
// and the result says how many there were; --format text says so on
// stderr, since it cannot write them as the program did.
func TestOutputThatIsNotUTF8IsMarked(t *testing.T) {
	needEngine(t)
	t.Parallel()
	src := "import sys\nsys.stdout.buffer.write(bytes(range(250, 256)) + b'ok')"
	r := py(t, nil, src)
	assert.Equal(t, r.code, 0, r.stderr)
	assert.Check(t, is.Equal(r.res.Output, "\uFFFDok"))
	assert.Check(t, is.Equal(r.res.OutputBytes, int64(8)))
	assert.Check(t, is.Equal(r.res.OutputReplaced, int64(6)))

	r = tool(t, nil, "", "run", "--image", pythonImage, "--format", "text", "--code", src)
	assert.Equal(t, r.code, 0, r.stderr)
	assert.Check(t, is.Equal(r.stdout, "\uFFFDok"))
	assert.Check(t, is.Equal(r.stderr, "synapse-isolation: note: 6 bytes of its stdout were not UTF-8, shown as U+FFFD (results carry text, not bytes)\n"))

	r = py(t, nil, "print('plain \uFFFD')")
	assert.Check(t, is.Equal(r.res.OutputReplaced, int64(0)), "a U+FFFD the program printed is text")
}

// TestAFailedPythonProgramIsNamedByItsException: the stderr line of a
// Python program that raised names the exception, as a Starlark error
// names its own.
func TestAFailedPythonProgramIsNamedByItsException(t *testing.T) {
	needEngine(t)
	t.Parallel()
	r := py(t, nil, "def f():\n    return 1 / 0\nf()")
	assert.Equal(t, r.code, 1, r.stderr)
	assert.Check(t, is.Equal(r.res.Error.Message, "exit status 1: ZeroDivisionError: division by zero"))
	assert.Check(t, strings.HasSuffix(r.stderr, "synapse-isolation: program_error: exec: exit status 1: ZeroDivisionError: division by zero\n"), r.stderr)
}
