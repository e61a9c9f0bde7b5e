package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
)

func errorMessage(r map[string]any) string {
	e, _ := r["error"].(map[string]any)
	m, _ := e["message"].(string)
	return m
}

// TestBatchLineCutShort: a line that ends inside its object says it is
// not complete JSON, naming its line, in the middle of the input or last
// without a newline, never a bare EOF.
func TestBatchLineCutShort(t *testing.T) {
	t.Parallel()
	input := `{"id":1,"source":"1+` + "\n" + `{"id": 2, "source": "ok"}` + "\n" + `{"id":3,` + "\n" + `{"id":4,"source":"ok"`
	code, results, errOut, _ := batchLines(t, input, "--ordered")
	assert.Equal(t, code, 2, errOut)
	assert.DeepEqual(t, field(results, "verdict"), []any{"rejected", "ok", "rejected", "rejected"})
	for _, i := range []int{0, 2, 3} {
		want := fmt.Sprintf("line %d: not complete JSON: the line ends before its object does (cut short?)", i+1)
		assert.Check(t, is.Equal(errorMessage(results[i]), want))
	}
}

// TestBatchIDIsOptional: a line without an id runs, its result's id null.
func TestBatchIDIsOptional(t *testing.T) {
	t.Parallel()
	code, results, errOut, _ := batchLines(t, `{"source": "ok"}`+"\n"+`{"source": "ok"}`+"\n", "--ordered")
	assert.Equal(t, code, 0, errOut)
	assert.DeepEqual(t, field(results, "id"), []any{nil, nil})
	assert.DeepEqual(t, field(results, "verdict"), []any{"ok", "ok"})
}

// TestBatchRefusesARepeatedID: a line whose id an earlier line had is
// refused, naming that line, and never runs; 1 and 1.0 are one id, "1"
// and 1 two; a refused line's id counts too.
func TestBatchRefusesARepeatedID(t *testing.T) {
	t.Parallel()
	input := strings.Join([]string{
		`{"id": "a", "source": "ok"}`, `{"id": 1, "source": "ok"}`, `{"id": "a", "source": "ok"}`,
		`{"id": 1.0, "source": "ok"}`, `{"id": "1", "source": "ok"}`, `{"id": 7}`, `{"id": 7, "source": "ok"}`,
		`{"id": "\u0061", "source": "ok"}`,
	}, "\n")
	code, results, errOut, state := batchLines(t, input, "--ordered")
	assert.Equal(t, code, 2, errOut)
	assert.DeepEqual(t, field(results, "verdict"), []any{"ok", "ok", "rejected", "rejected", "ok", "rejected", "rejected", "rejected"})
	for i, want := range map[int]string{
		2: `line 3: id "a" repeats line 1's: each id must name one request`,
		3: `line 4: id 1.0 repeats line 2's: each id must name one request`,
		5: `line 6: missing field "source"`,
		6: `line 7: id 7 repeats line 6's: each id must name one request`,
		7: `line 8: id "\u0061" repeats line 1's: each id must name one request`,
	} {
		assert.Check(t, is.Equal(errorMessage(results[i]), want))
	}
	assert.Check(t, is.Equal(strings.Count(fakedocker.Stdin(state), "\n"), 3), "a repeated id ran")
}

// TestBatchSummaryNamesTheFailures: "1 result" for one; the first failed
// ids by line, at most five, then how many more; a line without an id by
// its number.
func TestBatchSummaryNamesTheFailures(t *testing.T) {
	t.Parallel()
	_, _, errOut, _ := batchLines(t, `{"id": 1, "source": "ok"}`)
	assert.Check(t, is.Contains(errOut, "batch: 1 result, ok 1; wall "))

	input := `{"id": "b", "source": "program-error"}` + "\n" + `{"id": 2, "source": "ok"}` + "\n" + `{"source": "program-error"}` + "\n" +
		`not json` + "\n"
	_, _, errOut, _ = batchLines(t, input, "--parallel", "2")
	assert.Check(t, is.Contains(errOut, `batch: 4 results, ok 1, rejected 1, program_error 2; failed: "b" (program_error), line 3 (program_error), line 4 (rejected); wall `))

	input = ""
	for i := 1; i <= 8; i++ {
		input += fmt.Sprintf(`{"id": %d, "source": "program-error"}`+"\n", i)
	}
	_, _, errOut, _ = batchLines(t, input, "--parallel", "4")
	assert.Check(t, is.Contains(errOut, `; failed: 1 (program_error), 2 (program_error), 3 (program_error), 4 (program_error), 5 (program_error) and 3 more; wall `))
}

// TestBatchSummaryOfALongID: an id is cut to a readable length.
func TestBatchSummaryOfALongID(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 30)
	_, _, errOut, _ := batchLines(t, `{"id": "`+long+`", "source": "program-error"}`)
	assert.Check(t, is.Contains(errOut, `; failed: "`+strings.Repeat("é", 19)+`… (program_error)`))
}

// TestBatchProgressShowsTheTotalOfAFile: with --input a regular file and
// stderr a terminal, the progress counts against the file's requests
// (blank lines are none).
func TestBatchProgressShowsTheTotalOfAFile(t *testing.T) {
	t.Parallel()
	ptmx, tty := openPTY(t)
	self, _, env := useFakeDocker(t, "by-source")
	file := filepath.Join(t.TempDir(), "in.jsonl")
	assert.NilError(t, os.WriteFile(file, []byte("{\"id\":1,\"source\":\"ok\"}\n\n{\"id\":2,\"source\":\"ok\"}"), 0o600))
	seen := readUntil(ptmx, "batch: 2 results")
	var stdout bytes.Buffer
	code := run(context.Background(), []string{"synapse-isolation", "batch", "--image", testImage, "--cli", self, "--input", file}, env,
		strings.NewReader(""), &stdout, tty)
	assert.Equal(t, code, 0)
	select {
	case got := <-seen:
		assert.Check(t, is.Contains(got, "\rbatch: 1/2 done, 1 ok"))
		assert.Check(t, is.Contains(got, "\rbatch: 2/2 done, 2 ok"))
	case <-time.After(10 * time.Second):
		t.Fatal("no progress on the terminal")
	}
	assert.Equal(t, strings.Count(stdout.String(), "\n"), 2)
}

// fakeCPUs is a docker CLI that answers `docker [--context C] info` with
// the CPU count its script gives each context.
func fakeCPUs(t *testing.T, script string) isolation.Engine {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "docker")
	assert.NilError(t, os.WriteFile(bin, []byte("#!/bin/sh\n"+script+"\n"), 0o700))
	return isolation.Engine{CLI: bin}
}

// TestDefaultParallel: the engines' CPUs in all, at most the pool's 64,
// and 1 for an engine whose count cannot be read.
func TestDefaultParallel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	one := func(e isolation.Engine) isolation.PoolOptions {
		return isolation.PoolOptions{Run: isolation.Options{Engine: e}}
	}
	assert.Check(t, is.Equal(defaultParallel(ctx, one(fakeCPUs(t, `[ "$*" = "info --format {{.NCPU}}" ] && echo 3`))), 3))
	assert.Check(t, is.Equal(defaultParallel(ctx, one(fakeCPUs(t, "echo 200"))), 64))
	assert.Check(t, is.Equal(defaultParallel(ctx, one(fakeCPUs(t, "echo cannot connect >&2; exit 1"))), 1))
	assert.Check(t, is.Equal(defaultParallel(ctx, one(fakeCPUs(t, "echo lots"))), 1))
	assert.Check(t, is.Equal(defaultParallel(ctx, one(isolation.Engine{CLI: "/nonexistent/docker"})), 1))

	e := fakeCPUs(t, `case $2 in a) echo 2;; b) echo 5;; *) exit 1;; esac`)
	var po isolation.PoolOptions
	for _, name := range []string{"a", "b", "down"} {
		e.Context = name
		po.Engines = append(po.Engines, e)
	}
	assert.Check(t, is.Equal(defaultParallel(ctx, po), 8))
}

// TestBatchAsksTheEngineItsCPUs only without --parallel, once the flags
// are checked.
func TestBatchAsksTheEngineItsCPUs(t *testing.T) {
	t.Parallel()
	asked := func(state string) bool {
		for _, c := range fakedocker.Calls(state) {
			if strings.Join(c, " ") == "info --format {{.NCPU}}" {
				return true
			}
		}
		return false
	}
	code, _, errOut, state := batchLines(t, `{"id": 1, "source": "ok"}`)
	assert.Check(t, is.Equal(code, 0), errOut)
	assert.Check(t, asked(state))
	_, _, _, state = batchLines(t, `{"id": 1, "source": "ok"}`, "--parallel", "2")
	assert.Check(t, !asked(state))
}

// TestBatchSummaryEscapesControls: an id is the input's, so the summary
// on a terminal escapes the C1 controls that JSON leaves as they are
// (U+009B is a terminal's CSI).
func TestBatchSummaryEscapesControls(t *testing.T) {
	t.Parallel()
	_, _, errOut, _ := batchLines(t, "{\"id\": \"a\u009b2Jb\", \"source\": \"program-error\"}")
	assert.Check(t, is.Contains(errOut, `; failed: "a\x9b2Jb" (program_error)`), errOut)
	assert.Check(t, !strings.ContainsRune(errOut, '\u009b'), errOut)
}
