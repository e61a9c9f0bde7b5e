package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/hello"
	"github.com/synapse-lang/synapse-isolation/limits"
)

var runnerBin string

// TestMain builds the runner the way the image does (static, trimmed) and
// the tests run it as a subprocess, without Docker. Where there is no Go
// to build with (this test binary in a container on an arm64 engine,
// tests/arm64, running only the filter's tests, which start the test
// binary itself), SYNAPSE_RUNNER_TEST_NO_BUILD=1 says so. Started as the
// exec trampoline (by a step the tests run in-process, which starts
// /proc/self/exe), the test binary is the trampoline, as the runner is.
func TestMain(m *testing.M) {
	if isTrampoline() {
		os.Exit(trampoline(os.Args[2], os.Args[3:]))
	}
	if os.Getenv("SYNAPSE_RUNNER_TEST_NO_BUILD") == "1" {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "runner-test")
	if err != nil {
		panic(err)
	}
	runnerBin = filepath.Join(dir, "runner")
	build := exec.Command("go", "build", "-trimpath", "-o", runnerBin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		panic(string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// runRunner runs the built runner and strictly decodes its two frames: the
// hello line, then the one response.
func runRunner(t *testing.T, stdin string, args ...string) protocol.Response {
	t.Helper()
	_, resp := runRunnerHello(t, stdin, args...)
	return resp
}

func runRunnerHello(t *testing.T, stdin string, args ...string) (hello.Frame, protocol.Response) {
	t.Helper()
	cmd := exec.Command(runnerBin, args...)
	cmd.Stdin = strings.NewReader(stdin)
	// Exec mode's working directory is $TMPDIR/work: one per test.
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	assert.NilError(t, cmd.Run(), "runner must exit 0 when it answered")
	assert.Equal(t, stderr.String(), "", "the runner never writes to stderr")
	line, rest, ok := bytes.Cut(stdout.Bytes(), []byte("\n"))
	assert.Assert(t, ok, "no hello line: %s", stdout.String())
	hello, err := protocol.DecodeHello(line)
	assert.NilError(t, err, string(line))
	resp, err := protocol.DecodeResponse(rest)
	assert.NilError(t, err, string(rest))
	return hello, resp
}

func TestRunnerStarlark(t *testing.T) {
	t.Parallel()
	r := runRunner(t, `{"source":"print(3)\n1+2"}`)
	assert.Assert(t, r.OK)
	assert.Equal(t, string(r.Result), "3")
	assert.Equal(t, r.Output, "3\n")
}

func TestRunnerProgramError(t *testing.T) {
	t.Parallel()
	r := runRunner(t, `{"source":"1 +"}`)
	assert.Assert(t, !r.OK)
	assert.Equal(t, r.Error.Type, protocol.ErrSyntax)
	assert.Equal(t, r.Error.Line, 1)
}

func TestRunnerSelfDeadline(t *testing.T) {
	t.Parallel()
	start := time.Now()
	r := runRunner(t, `{"source":"while True:\n  pass"}`, "--timeout", "300ms")
	assert.Assert(t, time.Since(start) < 13*time.Second)
	assert.Equal(t, r.Error.Type, protocol.ErrTimeout)
}

// TestRunnerHostStop: the host's stop in the request ends the program
// before the runner's own --timeout, and the answer names it.
func TestRunnerHostStop(t *testing.T) {
	t.Parallel()
	start := time.Now()
	r := runRunner(t, `{"stop_ms":300,"source":"while True:\n  pass"}`, "--timeout", "60s")
	// 300 ms against 60 s: 30 s tells the two apart on any machine.
	assert.Assert(t, time.Since(start) < 30*time.Second, time.Since(start))
	assert.Equal(t, r.Error.Type, protocol.ErrTimeout)
	assert.Equal(t, r.Error.Message, "stopped: the host's stop, 300ms after the request")
	// A stop after the runner's own deadline changes nothing.
	r = runRunner(t, `{"stop_ms":600000,"source":"while True:\n  pass"}`, "--timeout", "300ms")
	assert.Equal(t, r.Error.Message, "stopped: runner deadline of 300ms")
}

func TestRunnerBadRequests(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		``:                              `request: want a JSON object with "source", "stdin", "files", "binary", "collect", "tests", "compare", "role" and "stop_ms"`,
		`{"source":"1","f":"x"}`:        `request: unknown field "f" (want "source", "stdin", "files", "binary", "collect", "tests", "compare", "role" and "stop_ms" only)`,
		`{"source":"1"}{"source":"2"}`:  "request: trailing data after the JSON value",
		"{\"source\":\"\xff\"}":         "request: invalid UTF-8 at offset 11",
		`[1]`:                           `request: want a JSON object with "source", "stdin", "files", "binary", "collect", "tests", "compare", "role" and "stop_ms"`,
		strings.Repeat(" ", 64<<10+100): "request: more than 65536 bytes encoded, over the limit of 65536",
	} {
		r := runRunner(t, in)
		assert.Check(t, !r.OK)
		assert.Check(t, is.Equal(r.Error.Type, protocol.ErrRequest))
		assert.Check(t, is.Equal(r.Error.Message, want))
	}
}

func TestRunnerBadArgs(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--bogus"}, {"--timeout"}, {"--timeout", "0"}, {"--exec"}, {"--selfcheck", "--exec", "sh"}} {
		// No hello: a runner that cannot parse its command line answers
		// with a refusal only, which no host takes for a hello.
		out, err := exec.Command(runnerBin, args...).Output()
		assert.NilError(t, err)
		r, err := protocol.DecodeResponse(out)
		assert.NilError(t, err, string(out))
		assert.Check(t, is.Equal(r.Error.Type, protocol.ErrRequest), "%q", args)
		_, err = protocol.DecodeHello(bytes.TrimSpace(out))
		assert.Check(t, err != nil, "%q", args)
	}
}

func TestRunnerExec(t *testing.T) {
	t.Parallel()
	// The source is a file the command line names; stdin is the program's.
	r := runRunner(t, `{"source":"read x; echo out $x; echo err >&2","stdin":"in\n"}`, "--exec", "sh", "-")
	assert.Assert(t, r.OK, "%+v", r.Error)
	assert.Equal(t, r.Output, "out in\n")
	assert.Equal(t, r.Stderr, "err\n")
	assert.Equal(t, r.StderrBytes, int64(4))
	assert.DeepEqual(t, *r.Exit, protocol.Exit{Code: 0})

	r = runRunner(t, `{"source":"exit 3"}`, "--exec", "sh")
	assert.Assert(t, !r.OK)
	assert.Equal(t, r.Error.Type, protocol.ErrExec)
	assert.DeepEqual(t, *r.Exit, protocol.Exit{Code: 3})

	r = runRunner(t, `{"source":"kill -TERM $$"}`, "--exec", "sh")
	assert.DeepEqual(t, *r.Exit, protocol.Exit{Code: -1, Signal: "terminated"})

	r = runRunner(t, `{"source":""}`, "--exec", "/nonexistent/interpreter")
	assert.Equal(t, r.Error.Type, protocol.ErrCommand)
	assert.Assert(t, is.Contains(r.Error.Message, "no such file"))
}

// TestRunnerExecWorkDir: the program runs in a fresh directory with its
// files and its source, named in its command line in place of "-" (or
// last); without stdin its stdin is at end-of-file at once.
func TestRunnerExecWorkDir(t *testing.T) {
	t.Parallel()
	src := `. ./lib.sh; echo x=$x; pwd; ls; cat data.txt; echo "$0 $1"; wc -c; echo more >> data.txt; cat data.txt`
	req := `{"source":` + quote(src) + `,"files":{"data.txt":"d1\n","lib.sh":"x=1\n"}}`
	r := runRunner(t, req, "--exec", "sh", "-", "-")
	assert.Assert(t, r.OK, "%+v %s", r.Error, r.Stderr)
	lines := strings.Split(r.Output, "\n")
	assert.Assert(t, len(lines) > 8, r.Output)
	assert.Check(t, is.Equal(lines[0], "x=1"))
	assert.Check(t, strings.HasSuffix(lines[1], "/work"), lines[1])
	assert.Check(t, is.DeepEqual(lines[2:5], []string{"data.txt", "lib.sh", "main"}))
	assert.Check(t, is.Equal(lines[5], "d1"))
	assert.Check(t, strings.HasSuffix(lines[6], "/work/main -"), "the first - is the source's path, the second stays: %q", lines[6])
	assert.Check(t, is.Equal(strings.TrimSpace(lines[7]), "0"), "stdin at EOF at once")
	assert.Check(t, is.DeepEqual(lines[8:10], []string{"d1", "more"}), "the directory is the program's to write")
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestRunnerExecHeadAndTail: a flood keeps its head and its tail, and a
// stream under half the cap beside it is whole.
func TestRunnerExecHeadAndTail(t *testing.T) {
	t.Parallel()
	r := runRunner(t, `{"source":"seq 1 40000; echo the end >&2"}`, "--exec", "sh")
	assert.Assert(t, r.OK, "%+v", r.Error)
	assert.Check(t, strings.HasPrefix(r.Output, "1\n2\n"))
	assert.Check(t, strings.HasSuffix(r.Output, "\n39999\n40000\n"))
	assert.Check(t, is.Contains(r.Output, " bytes dropped ...]\n"))
	assert.Check(t, r.OutputTruncated)
	assert.Check(t, is.Equal(r.OutputBytes, int64(228894)))
	assert.Check(t, is.Equal(r.Stderr, "the end\n"))
	assert.Check(t, len(r.Output)+len(r.Stderr) <= limits.MaxOutputBytes)

	r = runRunner(t, `{"source":"head -c 200000 /dev/zero | tr '\\0' x"}`, "--exec", "sh")
	assert.Assert(t, r.OK, "%+v", r.Error)
	assert.Check(t, len(r.Output) <= limits.MaxOutputBytes)
	assert.Check(t, is.Equal(r.OutputBytes, int64(200000)))
	assert.Check(t, r.OutputTruncated)
}

func TestRunnerStarlarkStdinAndLoad(t *testing.T) {
	t.Parallel()
	r := runRunner(t, `{"source":"load('lib.star', 'twice')\ntwice(stdin)","stdin":"ab","files":{"lib.star":"def twice(s):\n  return s + s\n"}}`)
	assert.Assert(t, r.OK, "%+v", r.Error)
	assert.Equal(t, string(r.Result), `"abab"`)
}

func TestRunnerExecDeadlineKillsGroup(t *testing.T) {
	t.Parallel()
	start := time.Now()
	// A background grandchild holding the output pipe must not keep the
	// runner waiting: it ends at its 300 ms deadline (the whole run takes
	// under half a second on a quiet machine), not when the sleeps would
	// (30 s); 20 s tells the two apart on any machine.
	r := runRunner(t, `{"source":"sleep 30 & sleep 30"}`, "--timeout", "300ms", "--exec", "sh")
	assert.Assert(t, time.Since(start) < 20*time.Second, time.Since(start))
	assert.Equal(t, r.Error.Type, protocol.ErrTimeout)
	assert.DeepEqual(t, *r.Exit, protocol.Exit{Code: -1, Signal: "killed"})
}
