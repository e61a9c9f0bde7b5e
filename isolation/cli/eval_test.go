package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
)

const sandboxRefusal = "synapse-isolation: eval --sandbox: eval runs trusted code in-process and never delegates to Docker; " +
	"to isolate untrusted code use: synapse-isolation run --image ID --code SRC\n"

// trapReader fails the test if anything reads it.
type trapReader struct{ t *testing.T }

func (r trapReader) Read([]byte) (int, error) {
	r.t.Error("stdin was read")
	return 0, os.ErrClosed
}

func TestEvalSandboxFailsClosed(t *testing.T) {
	t.Parallel()
	for name, args := range map[string][]string{
		"syntax error":  {"eval", "--sandbox", "--code", "1 +"},
		"missing file":  {"eval", "--code", "", "--sandbox", "--file", "/nonexistent/prog.star"},
		"endless loop":  {"eval", "--sandbox", "--code", "while True:\n  pass"},
		"stdin":         {"eval", "--sandbox", "--code", "-"},
		"sandbox=true":  {"eval", "--sandbox=true", "--code", "1+2"},
		"flag after it": {"eval", "--code", "1+2", "--sandbox"},
	} {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			start := time.Now()
			// No docker on PATH either: refusing must not depend on it.
			code := run(context.Background(), append([]string{"synapse-isolation"}, args...), []string{"PATH=/nonexistent"}, trapReader{t}, &stdout, &stderr)
			// Refused before the program ran: the endless loop would take
			// its whole timeout (10 s, the default); a refusal takes
			// milliseconds, under 0.1 s on a loaded machine.
			assert.Assert(t, time.Since(start) < 5*time.Second)
			assert.Equal(t, code, 2)
			assertRejectedJSON(t, stdout.String())
			assert.Equal(t, stderr.String(), sandboxRefusal)
		})
	}
	// A malformed flag value is refused while the flags are parsed, before
	// any action, with or without --sandbox, as every command refuses one:
	// nothing is read or run either way, and stdout has the rejected JSON.
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"synapse-isolation", "eval", "--sandbox", "--timeout", "never", "--code", "1"},
		[]string{"PATH=/nonexistent"}, trapReader{t}, &stdout, &stderr)
	assert.Equal(t, code, 2)
	assertRejectedJSON(t, stdout.String())
	assert.Equal(t, stderr.String(), "synapse-isolation: --timeout: must be a duration like 10s or 1m30s (got \"never\")\n")
}

type evalJSON struct {
	Verdict     string          `json:"verdict"`
	ExitCode    int             `json:"exit_code"`
	Result      json.RawMessage `json:"result"`
	ResultType  string          `json:"result_type"`
	Output      string          `json:"output"`
	OutputBytes int64           `json:"output_bytes"`
	Sandboxed   bool            `json:"sandboxed"`
	Error       *struct {
		Type, Message string
		Line, Col     int
	} `json:"error"`
}

func evalOut(t *testing.T, stdin string, args ...string) (int, evalJSON) {
	t.Helper()
	code, out, _ := runCLI(t, stdin, append([]string{"eval"}, args...)...)
	var r evalJSON
	assert.NilError(t, json.Unmarshal([]byte(out), &r), out)
	return code, r
}

func TestEval(t *testing.T) {
	t.Parallel()
	code, r := evalOut(t, "", "--code", "1+2")
	assert.Equal(t, code, 0)
	assert.Equal(t, r.Verdict, "ok")
	assert.Equal(t, string(r.Result), "3")
	assert.Equal(t, r.ResultType, "int")
	assert.Assert(t, !r.Sandboxed)

	code, r = evalOut(t, "print(3)\n1+2", "--code", "-")
	assert.Equal(t, code, 0)
	assert.Equal(t, r.Output, "3\n")

	path := filepath.Join(t.TempDir(), "p.star")
	assert.NilError(t, os.WriteFile(path, []byte("def f(n):\n  return n * 2\nf(21)\n"), 0o600))
	code, r = evalOut(t, "", "--file", path)
	assert.Equal(t, code, 0)
	assert.Equal(t, string(r.Result), "42")

	code, r = evalOut(t, "", "--code", "x = 1\nx.nope")
	assert.Equal(t, code, 1)
	assert.Equal(t, r.Verdict, "program_error")
	assert.Equal(t, r.Error.Type, "runtime")
	assert.Equal(t, r.Error.Line, 2)

	code, r = evalOut(t, "", "--code", "while True:\n  pass", "--timeout", "100ms")
	assert.Equal(t, code, 124)
	assert.Equal(t, r.Verdict, "timeout")
}

func TestEvalText(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI(t, "", "eval", "--format", "text", "--code", "print('a\\x1b[2Jb')\n'ok'")
	assert.Equal(t, code, 0)
	assert.Equal(t, out, "a\\x1b[2Jb\n=> \"ok\" (string)\n")
	code, out, errOut := runCLI(t, "", "eval", "--format", "text", "--code", "1 +")
	assert.Equal(t, code, 1)
	assert.Equal(t, out, "", "an error is said once, on stderr")
	assert.Equal(t, errOut, "synapse-isolation: program_error: syntax: got end of file, want primary expression (line 1, col 4)\n")
}

func TestEvalRejects(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 64<<10+1)
	for _, tc := range []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"eval"}, "", "one of --code or --file is required"},
		{[]string{"eval", "--code", "1", "--file", "x"}, "", "conflicting options: --code and --file"},
		{[]string{"eval", "--file", "/nonexistent/p.star"}, "", "--file: open /nonexistent/p.star: no such file or directory"},
		{[]string{"eval", "--code", "-"}, big, "request: more than 65536 bytes encoded, over the limit of 65536"},
		{[]string{"eval", "--code", "1", "--format", "yaml"}, "", `--format: must be json or text (got "yaml")`},
	} {
		code, out, errOut := runCLI(t, tc.stdin, tc.args...)
		assert.Check(t, is.Equal(code, 2), "%q", tc.args)
		assertRejectedJSON(t, out)
		assert.Check(t, is.Equal(errOut, "synapse-isolation: "+tc.want+"\n"))
	}
}

// assertRejectedJSON checks that stdout is one rejected result object.
func assertRejectedJSON(t *testing.T, out string) {
	t.Helper()
	var r evalJSON
	assert.NilError(t, json.Unmarshal([]byte(out), &r), out)
	assert.Equal(t, r.Verdict, "rejected")
	assert.Equal(t, r.ExitCode, 2)
	assert.Assert(t, !r.Sandboxed)
	assert.Equal(t, strings.Count(out, "\n"), 1)
}

// TestNULIsRefusedInStarlark: go.starlark.net stops reading at NUL, so a
// file most of which would never run is rejected, naming the offset.
func TestNULIsRefusedInStarlark(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "n.star")
	assert.NilError(t, os.WriteFile(path, []byte("print(\"before\")\n\x00\nprint(\"after\")\n1//0\n"), 0o644))
	// run asks the image which interpreter it declares (none: Starlark)
	// and starts no container.
	self, state, env := useFakeDocker(t, "ok")
	for _, args := range [][]string{{"eval", "--file", path}, {"run", "--image", testImage, "--cli", self, "--file", path}} {
		code, out, errOut := runCLIEnv(t, env, "", args...)
		assert.Check(t, is.Equal(code, 2), "%q: %s", args, out)
		assert.Check(t, is.Contains(errOut, "source: NUL byte at offset 16"), "%q", args)
	}
	for _, c := range fakedocker.Calls(state) {
		assert.Check(t, c[0] != "run", "a container was started: %q", c)
	}
}

// TestEvalTimeoutSaysItOnce: the verdict and the error type are one word;
// the message names the limit that stopped the program.
func TestEvalTimeoutSaysItOnce(t *testing.T) {
	t.Parallel()
	code, _, errOut := runCLI(t, "", "eval", "--timeout", "100ms", "--code", "while True: pass")
	assert.Equal(t, code, 124)
	assert.Equal(t, errOut, "synapse-isolation: timeout: stopped at the timeout of 100ms\n")
}

// TestInvalidUTF8IsRefusedAlike: eval, run and batch refuse a source that
// is not valid UTF-8 by one rule, naming its offset; none runs it with
// U+FFFD in its place.
func TestInvalidUTF8IsRefusedAlike(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "bad.star")
	assert.NilError(t, os.WriteFile(path, []byte("print(\"caf\xe9\")\n"), 0o644))
	for _, args := range [][]string{{"eval", "--file", path}, {"run", "--image", testImage, "--cli", "/nonexistent/docker", "--file", path}} {
		code, out, errOut := runCLI(t, "", args...)
		assert.Check(t, is.Equal(code, 2), "%q: %s", args, out)
		assert.Check(t, is.Contains(errOut, "source: invalid UTF-8 at offset 10"), "%q", args)
		assertRejectedJSON(t, out)
	}
	code, results, _, _ := batchLines(t, "{\"id\":1,\"source\":\"caf\xe9\"}\n")
	assert.Check(t, is.Equal(code, 2))
	assert.Check(t, is.Equal(results[0]["error"].(map[string]any)["message"], "line 1: invalid UTF-8 at offset 21"))
}
