package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestTextErrorsOnStderrOnce: with --format text nothing is JSON, a flag
// that does not parse included, and an error is said once, on stderr, in
// one line, never also on stdout.
func TestTextErrorsOnStderrOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--format", "text", "--memory", "1x"}, `--memory: must be a number with an optional unit k, m, g, t or p, like 512m or 1GiB (got "1x")`},
		{[]string{"run", "--format=text", "--timeout", "abc"}, `--timeout: must be a duration like 10s or 1m30s (got "abc")`},
		{[]string{"run", "-format", "text", "--bogus"}, "unknown flag --bogus"},
		{[]string{"run", "--image", testImage, "--format", "text", "--code", "1", "--file", "x"}, "conflicting options: --code and --file"},
		{[]string{"eval", "--format", "text", "--timeout", "abc"}, `--timeout: must be a duration like 10s or 1m30s (got "abc")`},
		{[]string{"eval", "--format", "text", "--code", `fail("boom\n=> 42 (int)")`}, `program_error: runtime: fail: boom\n=> 42 (int) (line 1, col 5)`},
	} {
		code, out, errOut := runCLI(t, "", tc.args...)
		assert.Check(t, code != 0, "%q", tc.args)
		assert.Check(t, is.Equal(out, ""), "%q", tc.args)
		assert.Check(t, is.Equal(errOut, "synapse-isolation: "+tc.want+"\n"), "%q", tc.args)
	}
	// The last --format wins, as when the flags parse; a value of another
	// flag that reads "--format" is not one. The format is the one the
	// flags set before the parser stopped: words after a flag it refused
	// are not read again by a second parser.
	for _, args := range [][]string{
		{"run", "--format", "text", "--format", "json", "--memory", "1x"},
		{"run", "--name", "--format", "text", "--memory", "1x"},
		{"run", "--memory", "1x", "--format", "text"},
	} {
		_, out, _ := runCLI(t, "", args...)
		assert.Check(t, strings.HasPrefix(out, `{"verdict":"rejected"`), "%q: %s", args, out)
	}
}

// TestStdinSourceMustBeAProgram: `--code -` and `--file -` refuse an empty
// stdin and a terminal (which would wait for a program nobody types);
// --code "" is still an empty program, written out.
func TestStdinSourceMustBeAProgram(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"--code", "--file"} {
		for _, cmd := range [][]string{{"eval"}, {"run", "--image", testImage, "--cli", "/nonexistent/docker"}} {
			args := append(cmd, flag, "-")
			code, out, errOut := runCLI(t, "", args...)
			assert.Check(t, is.Equal(code, 2), "%q", args)
			assertRejectedJSON(t, out)
			assert.Check(t, is.Equal(errOut, "synapse-isolation: "+flag+" -: standard input is empty\n"), "%q", args)

			_, tty := openPTY(t)
			var stdout, stderr bytes.Buffer
			done := make(chan int)
			go func() {
				done <- run(context.Background(), append([]string{"synapse-isolation"}, args...), os.Environ(), tty, &stdout, &stderr)
			}()
			select {
			case code := <-done:
				assert.Check(t, is.Equal(code, 2), "%q", args)
				assert.Check(t, is.Contains(stderr.String(), flag+" -: standard input is a terminal"), "%q", args)
			case <-time.After(5 * time.Second):
				t.Fatalf("%q waited on a terminal", args)
			}
		}
	}
	code, _, errOut := runCLI(t, "", "eval", "--code", "")
	assert.Check(t, is.Equal(code, 0), errOut)
}

// TestSourceFileAsArgument: a positional argument naming an existing file
// is taken for what it likely is, a program (or batch's input) to read.
func TestSourceFileAsArgument(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	prog := filepath.Join(dir, "prog.star")
	assert.NilError(t, os.WriteFile(prog, []byte("1\n"), 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--image", testImage, prog}, `unexpected argument "` + prog + `": did you mean --file ` + prog + `? (an interpreter command goes after --)`},
		{[]string{"eval", prog}, `unexpected argument "` + prog + `" (eval takes no arguments): did you mean --file ` + prog + `?`},
		{[]string{"batch", "--image", testImage, prog}, `unexpected argument "` + prog + `": did you mean --input ` + prog + `? (an interpreter command goes after --)`},
		// Not a file: the interpreter advice as before.
		{[]string{"run", "--image", testImage, filepath.Join(dir, "none.star")}, `an interpreter command goes after --, as in: run ... -- python3 -`},
		{[]string{"run", "--image", testImage, dir}, `an interpreter command goes after --, as in: run ... -- python3 -`},
	} {
		code, _, errOut := runCLI(t, "", tc.args...)
		assert.Check(t, is.Equal(code, 2), "%q", tc.args)
		assert.Check(t, is.Contains(errOut, tc.want), "%q", tc.args)
	}
}

// TestFailureNamesItsFile: the stderr line of a failing program read with
// --file names the file, so one of several runs (make -j) is known.
func TestFailureNamesItsFile(t *testing.T) {
	t.Parallel()
	prog := filepath.Join(t.TempDir(), "bad.star")
	assert.NilError(t, os.WriteFile(prog, []byte("1//0\n"), 0o644))
	code, _, errOut := runCLI(t, "", "eval", "--file", prog)
	assert.Check(t, is.Equal(code, 1))
	assert.Check(t, is.Equal(errOut, "synapse-isolation: "+prog+": program_error: runtime: floored division by zero (line 1, col 2)\n"))

	self, _, env := useFakeDocker(t, "program-error")
	code, _, errOut = runCLIEnv(t, env, "", "run", "--image", testImage, "--cli", self, "--file", prog)
	assert.Check(t, is.Equal(code, 1))
	assert.Check(t, is.Equal(errOut, "synapse-isolation: "+prog+": program_error: runtime: boom (line 1, col 1)\n"))
	// From --code, there is no file to name.
	code, _, errOut = runCLIEnv(t, env, "", "run", "--image", testImage, "--cli", self, "--code", "1//0")
	assert.Check(t, is.Equal(code, 1))
	assert.Check(t, is.Equal(errOut, "synapse-isolation: program_error: runtime: boom (line 1, col 1)\n"))
}
