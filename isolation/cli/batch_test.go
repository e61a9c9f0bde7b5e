package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// batchLines runs batch against the fake docker, whose containers answer
// as their request's source says (ok, slow, malformed, program-error...).
func batchLines(t *testing.T, input string, flags ...string) (int, []map[string]any, string, string) {
	t.Helper()
	self, state, env := useFakeDocker(t, "by-source")
	args := append([]string{"batch", "--image", testImage, "--cli", self}, flags...)
	code, out, errOut := runCLIEnv(t, env, input, args...)
	var results []map[string]any
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		assert.NilError(t, json.Unmarshal([]byte(l), &m), l)
		results = append(results, m)
	}
	assert.Check(t, is.Len(fakedocker.Containers(state), 0), "a container was left behind")
	return code, results, errOut, state
}

func field(results []map[string]any, key string) []any {
	var out []any
	for _, r := range results {
		out = append(out, r[key])
	}
	return out
}

func TestBatchIDsAndOrder(t *testing.T) {
	t.Parallel()
	// The first answers only once the other two containers ended, and a
	// second after: what is left of theirs is the host's reading of an
	// answer it has whole.
	input := `{"id": "first", "source": "last"}
{"id": 2, "source": "ok"}
{"id": "third", "source": "ok"}
`
	code, results, errOut, _ := batchLines(t, input, "--parallel", "3")
	assert.Equal(t, code, 0, errOut)
	assert.Equal(t, len(results), 3)
	assert.Equal(t, results[2]["id"], "first", "completion order: the slow one comes last")

	code, results, errOut, _ = batchLines(t, input, "--parallel", "3", "--ordered")
	assert.Equal(t, code, 0, errOut)
	assert.DeepEqual(t, field(results, "id"), []any{"first", 2.0, "third"})
	assert.DeepEqual(t, field(results, "line"), []any{1.0, 2.0, 3.0})
	for _, r := range results {
		assert.Check(t, is.Equal(r["verdict"], "ok"))
		timings := r["timings"].(map[string]any)
		for _, k := range []string{"wait_ms", "handshake_us", "exec_ms", "cleanup_ms"} {
			assert.Check(t, timings[k] != nil, k)
		}
		// A warm container started and said hello before its request.
		assert.Check(t, timings["start_ms"] == nil)
	}
	assert.Check(t, is.Contains(errOut, "batch: 3 results, ok 3; wall "))
	assert.Check(t, is.Contains(errOut, "exec_ms p50 "))
}

func TestBatchMalformedLinesGetTheirOwnResult(t *testing.T) {
	t.Parallel()
	input := strings.Join([]string{
		`{"id": 1, "source": "ok"}`,
		`not json`,
		`{"id": 3, "source": "ok", "callable": "os.system"}`,
		`{"id": 4}`,
		`{"id": 5, "source": "` + strings.Repeat("x", limits.MaxLineBytes) + `"}`,
		`{"id": [6], "source": "ok"}`,
		`{"id": 7, "source": "ok"} {"id": 8}`,
		`{"id": 9, "source": "ok"}`,
	}, "\n")
	code, results, errOut, _ := batchLines(t, input, "--ordered", "--parallel", "2")
	assert.Equal(t, code, 2, "a rejected line is the worst verdict here: %s", errOut)
	assert.Equal(t, len(results), 8, "every input line gets exactly one result line")
	verdicts := field(results, "verdict")
	assert.DeepEqual(t, verdicts, []any{"ok", "rejected", "rejected", "rejected", "rejected", "rejected", "rejected", "ok"})
	for i, want := range map[int]string{
		1: `line 2: want a JSON object with "id", "source", "stdin", "files", "collect", "tests", "compare", "checker" and "interactor"`, 2: `line 3: unknown field "callable" (want "id", "source", "stdin", "files", "collect", "tests", "compare", "checker" and "interactor" only)`,
		3: `line 4: missing field "source"`, 4: `line 5: request: the line is more than 69632 bytes (cut in the program), over the limit of 65536`, 5: `line 6: "id" must be a string or a number`,
		6: "line 7: trailing data",
	} {
		msg := results[i]["error"].(map[string]any)["message"].(string)
		assert.Check(t, strings.HasPrefix(msg, want), "%d: %s", i, msg)
	}
	assert.Check(t, is.Equal(results[3]["id"], 4.0), "the id of a refused line is kept")
	assert.Check(t, is.Equal(results[4]["id"], 5.0), "the id of a line past the bound, before the cut, is kept")
	assert.Check(t, is.Equal(results[2]["id"], 3.0), "the id of a line with a field of no request is kept")
}

// TestBatchKeepsTheIdOfALineWithAKeyTwice: a line refused for a key twice
// inside "files" keeps its id, and the summary names it by that id.
func TestBatchKeepsTheIdOfALineWithAKeyTwice(t *testing.T) {
	t.Parallel()
	input := `{"id": "dupkey", "source": "ok", "files": {"a.txt": "1", "a.txt": "2"}}` + "\n"
	code, results, errOut, _ := batchLines(t, input, "--ordered")
	assert.Equal(t, code, 2, errOut)
	assert.Assert(t, is.Len(results, 1))
	assert.Check(t, is.Equal(results[0]["id"], "dupkey"))
	assert.Check(t, is.Contains(errOut, `failed: "dupkey" (rejected)`), errOut)
}

func TestBatchHostileResponseInTheMiddle(t *testing.T) {
	t.Parallel()
	input := "{\"id\":1,\"source\":\"ok\"}\n{\"id\":2,\"source\":\"malformed\"}\n{\"id\":3,\"source\":\"program-error\"}\n{\"id\":4,\"source\":\"ok\"}\n"
	code, results, errOut, _ := batchLines(t, input, "--ordered")
	assert.Equal(t, code, 3, "a sandbox failure outranks a program error: %s", errOut)
	assert.DeepEqual(t, field(results, "verdict"), []any{"ok", "sandbox_failure", "program_error", "ok"})
	assert.Check(t, is.Contains(errOut, "batch: 4 results, ok 2, sandbox_failure 1, program_error 1"))
}

func TestBatchFailFast(t *testing.T) {
	t.Parallel()
	input := "{\"id\":1,\"source\":\"ok\"}\n{\"id\":2,\"source\":\"program-error\"}\n{\"id\":3,\"source\":\"ok\"}\n{\"id\":4,\"source\":\"ok\"}\n"
	code, results, _, _ := batchLines(t, input, "--fail-fast")
	assert.Equal(t, code, 1)
	assert.DeepEqual(t, field(results, "id"), []any{1.0, 2.0}) // nothing is read after the first failure
}

func TestBatchRefusesBadFlagsBeforeAnyContainer(t *testing.T) {
	t.Parallel()
	for _, flags := range [][]string{{"--parallel", "0"}, {"--idle", "forever"}, {"--idle", "2s"}, {"--idle", "11m"}, {"--memory", "1m"}, {"stray"}} {
		code, results, errOut, state := batchLines(t, `{"id":1,"source":"ok"}`, flags...)
		assert.Check(t, is.Equal(code, 2), "%q: %s", flags, errOut)
		if flags[0] == "--idle" {
			assert.Check(t, is.Contains(errOut, "--idle: must be"))
		}
		assert.Check(t, is.Len(results, 0))
		assert.Check(t, is.Len(fakedocker.Calls(state), 0), "%q: docker was called", flags)
	}
}

func TestBatchExecModeAsInRun(t *testing.T) {
	t.Parallel()
	code, results, errOut, state := batchLines(t, `{"id":1,"source":"ok"}`+"\n", "--", "python3", "-")
	assert.Equal(t, code, 0, errOut)
	assert.Equal(t, len(results), 1)
	var runs int
	for _, c := range fakedocker.Calls(state) {
		if c[0] == "run" {
			runs++
			n := len(c)
			assert.Check(t, is.DeepEqual(c[n-3:], []string{"--exec", "python3", "-"}), "%q", c)
			assert.Check(t, strings.Contains(strings.Join(c, " "), "--idle 1m0s"), "%q", c)
		}
	}
	assert.Check(t, runs >= 1)
}

// TestBatchProgressOnATerminal: with stderr a terminal, batch keeps a
// progress line there; the summary still ends it.
func TestBatchProgressOnATerminal(t *testing.T) {
	t.Parallel()
	ptmx, tty := openPTY(t)
	self, _, env := useFakeDocker(t, "by-source")
	seen := readUntil(ptmx, "batch: 2 results")
	var stdout bytes.Buffer
	code := run(context.Background(), []string{"synapse-isolation", "batch", "--image", testImage, "--cli", self}, env,
		strings.NewReader("{\"id\":1,\"source\":\"ok\"}\n{\"id\":2,\"source\":\"ok\"}\n"), &stdout, tty)
	assert.Equal(t, code, 0)
	select {
	case got := <-seen:
		assert.Check(t, is.Contains(got, "\rbatch: 1 done, 1 ok"))
		assert.Check(t, is.Contains(got, "\rbatch: 2 done, 2 ok"))
	case <-time.After(10 * time.Second):
		t.Fatal("no progress on the terminal")
	}
	assert.Equal(t, strings.Count(stdout.String(), "\n"), 2, "progress goes to stderr only")
}

// TestBatchRefusesWhatRunRefuses: invalid UTF-8 and, in Starlark mode, a
// NUL byte are rejected on their line, as run rejects them, and never run.
func TestBatchRefusesWhatRunRefuses(t *testing.T) {
	t.Parallel()
	input := "{\"id\":1,\"source\":\"a\xffb\"}\n{\"id\":2,\"source\":\"ok\\u0000\"}\n{\"id\":3,\"source\":\"ok\"}\n"
	code, results, errOut, state := batchLines(t, input, "--ordered")
	assert.Equal(t, code, 2, errOut)
	assert.DeepEqual(t, field(results, "verdict"), []any{"rejected", "rejected", "ok"})
	assert.Check(t, is.Contains(results[0]["error"].(map[string]any)["message"].(string), "line 1: invalid UTF-8"))
	assert.Check(t, is.Contains(results[1]["error"].(map[string]any)["message"].(string), "source: NUL byte at offset 2"))
	assert.Check(t, is.Regexp(`^\{"stop_ms":[0-9]+,"source":"ok"\}\n$`, fakedocker.Stdin(state)), "only the valid line reached a container")
}

// TestBatchFailFastWithParallel: with --fail-fast and --parallel 4, the
// requests already running when the first failure comes finish and are
// reported; none starts after it. Lines 2 to 4 answer only once line 1's
// container has ended, and 400 ms after, so the failure is first however
// slowly a loaded machine starts their containers.
func TestBatchFailFastWithParallel(t *testing.T) {
	t.Parallel()
	input := `{"id":1,"source":"program-error"}` + "\n"
	for i := 2; i <= 4; i++ {
		input += fmt.Sprintf(`{"id":%d,"source":"after-first"}`+"\n", i)
	}
	for i := 5; i <= 8; i++ {
		input += fmt.Sprintf(`{"id":%d,"source":"ok"}`+"\n", i)
	}
	code, results, errOut, state := batchLines(t, input, "--fail-fast", "--parallel", "4", "--ordered")
	assert.Equal(t, code, 1, errOut)
	assert.DeepEqual(t, field(results, "id"), []any{1.0, 2.0, 3.0, 4.0})
	assert.DeepEqual(t, field(results, "verdict"), []any{"program_error", "ok", "ok", "ok"})
	assert.Equal(t, strings.Count(fakedocker.Stdin(state), "\n"), 4, "a request started after the failure")
}

// TestBatchIdleRangeIsThePools: the range and its message are the
// library's, spelled as the flag.
func TestBatchIdleRangeIsThePools(t *testing.T) {
	t.Parallel()
	code, _, errOut, _ := batchLines(t, `{"id":1,"source":"ok"}`, "--idle", "2s")
	assert.Equal(t, code, 2)
	assert.Equal(t, errOut, "synapse-isolation: --idle: must be from 10s to 10m0s (got \"2s\")\n")
}

// TestBatchLineMessagesSpeakJSON: a refused line's message names JSON
// fields and types, never Go's; blank lines are skipped, in order too.
func TestBatchLineMessagesSpeakJSON(t *testing.T) {
	t.Parallel()
	input := "{\"id\": 1, \"source\": 3}\n\n   \n{\"source\": \"a\", \"source\": \"b\"}\n{\"id\": 5, \"source\": \"ok\"}\n\n"
	code, results, errOut, _ := batchLines(t, input, "--ordered")
	assert.Equal(t, code, 2, errOut)
	assert.DeepEqual(t, field(results, "line"), []any{1.0, 4.0, 5.0})
	for i, want := range []string{`line 1: "source" must be a string`, `line 4: duplicate field "source"`} {
		assert.Check(t, is.Equal(results[i]["error"].(map[string]any)["message"], want))
	}
	for _, r := range results {
		if e, ok := r["error"].(map[string]any); ok {
			assert.Check(t, !strings.Contains(e["message"].(string), "Go struct"), e["message"])
			assert.Check(t, !strings.Contains(e["message"].(string), "EOF"), e["message"])
		}
	}
}

// TestBatchJoinsItsReader: once batch returns (here at --fail-fast's first
// failure, with more input left), its input reader has ended too.
func TestBatchJoinsItsReader(t *testing.T) {
	input := `{"id": 1, "source": "program-error"}` + "\n" + strings.Repeat(`{"id": 2, "source": "ok"}`+"\n", 50)
	code, _, errOut, _ := batchLines(t, input, "--fail-fast")
	assert.Equal(t, code, 1, errOut)
	buf := make([]byte, 1<<20)
	stacks := string(buf[:runtime.Stack(buf, true)])
	assert.Check(t, !strings.Contains(stacks, "(*batch).read.func"), "the reader is still running:\n%s", stacks)
}

// TestBatchWriteFailure: a result line that cannot be written stops the
// batch, which exits as the tool's own failure (125), saying why.
func TestBatchWriteFailure(t *testing.T) {
	t.Parallel()
	self, state, env := useFakeDocker(t, "by-source")
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"synapse-isolation", "batch", "--image", testImage, "--cli", self},
		env, strings.NewReader(`{"id": 1, "source": "ok"}`+"\n"), brokenStdout{}, &stderr)
	assert.Check(t, is.Equal(code, 125))
	assert.Check(t, is.Contains(stderr.String(), "writing the result: no space left on device"))
	assert.Check(t, is.Len(fakedocker.Containers(state), 0))
}

// TestPercentile: nearest rank, so the p95 of [1, 7] is 7, not 1.
func TestPercentile(t *testing.T) {
	t.Parallel()
	twenty := make([]int64, 20)
	for i := range twenty {
		twenty[i] = int64(i + 1)
	}
	for _, tc := range []struct {
		s    []int64
		p    int
		want int64
	}{
		{[]int64{1, 7}, 95, 7}, {[]int64{1, 7}, 50, 1}, {[]int64{5}, 95, 5}, {[]int64{1, 2, 3, 4}, 50, 2},
		{twenty, 95, 19}, {twenty, 50, 10}, {twenty, 100, 20},
	} {
		assert.Check(t, is.Equal(percentile(tc.s, tc.p), tc.want), "p%d of %v", tc.p, tc.s)
	}
}

// TestBatchParallelRange: one range, the pool's, in one message, whether
// the CLI or the pool refuses the value.
func TestBatchParallelRange(t *testing.T) {
	t.Parallel()
	for _, n := range []string{"0", "65", "-1"} {
		code, _, errOut := runCLI(t, "", "batch", "--image", testImage, "--cli", "/nonexistent/docker", "--parallel", n)
		assert.Check(t, is.Equal(code, 2), n)
		assert.Check(t, is.Equal(errOut, `synapse-isolation: --parallel: must be from 1 to 64 (got "`+n+`")`+"\n"), n)
	}
}

// TestBatchLineThatCannotBeEncoded: a result whose value is not JSON
// still gets its line, as the tool's own failure, never a crash.
func TestBatchLineThatCannotBeEncoded(t *testing.T) {
	var stdout, stderr bytes.Buffer
	out := newBatchOutput(&stdout, &stderr, false, 1, status)
	out.slots <- struct{}{}
	out.emit(1, json.RawMessage(`"a"`), isolation.Result{Verdict: protocol.OK, Result: json.RawMessage("{not json")})
	var line map[string]any
	assert.NilError(t, json.Unmarshal(stdout.Bytes(), &line), stdout.String())
	assert.Check(t, is.Equal(line["verdict"], "engine_failure"))
	assert.Check(t, is.Equal(line["line"], float64(1)))
	assert.Check(t, is.Equal(out.worst(), protocol.EngineFailure))
}

// TestBatchImageMissing: an engine without the image is found out by the
// pool's engine check, which names it, before any label of the image is
// read and before anything starts.
func TestBatchImageMissing(t *testing.T) {
	t.Parallel()
	self, state, env := useFakeDocker(t, "no-image")
	// An image of its own: the declared interpreter of an image ID is
	// cached in the process, and other tests' runs know testImage's.
	image := "sha256:" + strings.Repeat("5", 64)
	code, out, errOut := runCLIEnv(t, env, `{"id": 1, "source": "1"}`+"\n", "batch", "--image", image, "--cli", self, "--parallel", "1")
	assert.Check(t, is.Equal(code, 125), errOut)
	assert.Check(t, is.Contains(errOut, "is not present (nothing is pulled)"))
	assert.Check(t, !strings.Contains(errOut, "labels"), errOut)
	assert.Check(t, is.Equal(out, ""))
	assert.Check(t, is.Len(fakedocker.Containers(state), 0))
}
