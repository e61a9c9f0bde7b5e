package tests

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestReadmeJudgeRecipe runs the README's judge recipe as shown: one
// request per language (Python, C) with every test of tests/, per-test
// verdicts on stdout, make failing on a wrong answer and passing once the
// expected output is right; then its checked target, a Python checker
// grading the C program's sums, one of them wrong; then its interactive
// target, a guessing game's interactor and a C binary search, then a
// linear one over the budget.
func TestReadmeJudgeRecipe(t *testing.T) {
	needEngine(t)
	if _, err := exec.LookPath("make"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and no make: %v", err)
		}
		t.Skipf("SKIPPED, NOT PASSED: no make: %v", err)
	}
	t.Parallel()
	dir := workdir(t)
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "Makefile"), []byte(readmeBlock(t, "makefile", "judge:")), 0o644))
	write := func(name, content string) {
		assert.NilError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		assert.NilError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	write("prog.py", "import sys\nprint(sum(int(x) for x in sys.stdin.read().split()))\n")
	write("prog.c", "#include <stdio.h>\nint main(void) { long a, s = 0; while (scanf(\"%ld\", &a) == 1) s += a; printf(\"%ld\\n\", s); }\n")
	write("tests/1.in", "1 2\n")
	write("tests/1.out", "3\n")
	write("tests/2.in", "5 5\n")
	write("tests/2.out", "11\n") // a wrong answer
	write("tests/10.in", "")
	write("tests/10.out", "0\n")
	make := func(target ...string) (string, string, int) {
		cmd := exec.Command("make", append([]string{"-k", "-C", dir}, append(target, "judge")[0])...)
		cmd.Env = append(os.Environ(), "PY="+pythonImage, "C="+cImage)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else {
			assert.NilError(t, err)
		}
		return stdout.String(), stderr.String(), code
	}

	out, errOut, code := make()
	assert.Check(t, code != 0, "a wrong answer fails make")
	for _, line := range []string{"test 1: ok", "test 2: wrong_answer (line 1 differs)", "test 10: ok"} {
		assert.Check(t, is.Equal(strings.Count(out, line), 2), "%q once per language, in test order:\n%s", line, out)
	}
	assert.Check(t, strings.Index(out, "test 2:") < strings.Index(out, "test 10:"), "numbers by value:\n%s", out)
	assert.Check(t, is.Contains(errOut, `synapse-isolation: prog.py: wrong_answer: test "2": its stdout differs from the expected output at line 1`), errOut)
	assert.Check(t, is.Contains(errOut, `synapse-isolation: prog.c: wrong_answer: test "2"`), errOut)

	write("tests/2.out", "10\n")
	out, errOut, code = make()
	assert.Check(t, is.Equal(code, 0), "%s\n%s", out, errOut)
	assert.Check(t, is.Equal(strings.Count(out, ": ok, "), 6), out)

	// The checker reads the input's numbers and the program's answer.
	write("check.py", "import sys\nwant = sum(int(x) for x in open(sys.argv[1]).read().split())\n"+
		"got = open(sys.argv[2]).read().split()\nsys.exit(0 if got == [str(want)] else 1)\n")
	write("tests/2.in", "5 6\n")
	out, errOut, code = make("judge-checked")
	assert.Check(t, is.Equal(code, 0), "%s\n%s", out, errOut)
	assert.Check(t, is.Equal(strings.Count(out, ": ok, "), 3), out)
	write("check.py", "import sys\nsys.stderr.write('never right\\n')\nsys.exit(1)\n")
	out, errOut, code = make("judge-checked")
	assert.Check(t, code != 0, out)
	assert.Check(t, is.Contains(errOut, `wrong_answer: test "1": the checker: wrong answer: never right`), errOut)

	// The interactive target: the game's interactor and a binary search,
	// then one that guesses over the budget.
	write("interact.py", readFile(t, filepath.Join("testdata", "interact", "interactor.py")))
	write("guess.c", readFile(t, filepath.Join("testdata", "interact", "search.c")))
	write("game/1.in", "100\n")
	write("game/1.out", "37\n")
	write("game/2.in", "1000\n")
	write("game/2.out", "999\n")
	out, errOut, code = make("judge-interactive")
	assert.Check(t, is.Equal(code, 0), "%s\n%s", out, errOut)
	assert.Check(t, is.Equal(strings.Count(out, ": ok, "), 2), out)
	write("guess.c", readFile(t, filepath.Join("testdata", "interact", "linear.c")))
	out, errOut, code = make("judge-interactive")
	assert.Check(t, code != 0, out)
	assert.Check(t, is.Contains(errOut, `wrong_answer: test "1": the interactor: wrong answer: over the budget of 8 guesses`), errOut)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	assert.NilError(t, err)
	return string(b)
}
