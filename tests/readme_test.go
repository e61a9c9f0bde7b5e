package tests

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
)

// readmeBlock returns the first fenced block of the README whose fence
// line is "```"+info and whose text starts with first, so the tests run
// exactly what the README shows.
func readmeBlock(t *testing.T, info, first string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	assert.NilError(t, err)
	_, rest, ok := strings.Cut(string(b), "\n```"+info+"\n"+first)
	assert.Assert(t, ok, "no ```%s block starting %q in README.md", info, first)
	block, _, ok := strings.Cut(rest, "\n```")
	assert.Assert(t, ok)
	return first + block + "\n"
}

// workdir is a directory with the built tool as ./synapse-isolation.
func workdir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	assert.NilError(t, os.Symlink(toolBin, filepath.Join(dir, "synapse-isolation")))
	return dir
}

func TestReadmeMakefileRecipe(t *testing.T) {
	needEngine(t)
	if _, err := exec.LookPath("make"); err != nil {
		t.Skipf("SKIPPED, NOT PASSED: no make: %v", err)
	}
	t.Parallel()
	dir := workdir(t)
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "Makefile"), []byte(readmeBlock(t, "makefile", "")), 0o644))
	assert.NilError(t, os.Mkdir(filepath.Join(dir, "snippets"), 0o755))
	for name, src := range map[string]string{"a-ok.star": "1+2", "b-bad.star": "1 // 0"} {
		assert.NilError(t, os.WriteFile(filepath.Join(dir, "snippets", name), []byte(src), 0o644))
	}
	cmd := exec.Command("make", "-C", dir, "check")
	cmd.Env = append(os.Environ(), "SYNAPSE_IMAGE="+refImage)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	assert.Assert(t, errors.As(err, &ee), "make must fail on the bad snippet: %v", err)
	assert.Check(t, is.Contains(stderr.String(), "synapse-isolation: program_error: runtime: floored division by zero (line 1, col 3)"))

	var res runJSON
	b, err := os.ReadFile(filepath.Join(dir, "snippets", "a-ok.json"))
	assert.NilError(t, err)
	assert.NilError(t, json.Unmarshal(b, &res))
	assert.Check(t, is.Equal(res.Verdict, "ok"))
	assert.Check(t, is.Equal(string(res.Result), "3"))
	_, err = os.Stat(filepath.Join(dir, "snippets", "b-bad.json"))
	assert.Check(t, os.IsNotExist(err), "a failed snippet leaves no .json")
}

func TestReadmeShellScript(t *testing.T) {
	needEngine(t)
	t.Parallel()
	dir := workdir(t)
	script := filepath.Join(dir, "run-one.sh")
	assert.NilError(t, fakedocker.WriteExecutable(script, []byte(readmeBlock(t, "sh", "#!/bin/sh\n"))))
	for _, tc := range []struct {
		src, want string
		code      int
	}{
		{"1+2", "ok\n", 0},
		{"fail('no')", "the program failed: see result.json\n", 0},
		{"while True:\n  pass", "timed out\n", 0},
	} {
		prog := filepath.Join(dir, "prog.star")
		assert.NilError(t, os.WriteFile(prog, []byte(tc.src), 0o644))
		cmd := exec.Command(script, prog)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "SYNAPSE_IMAGE="+refImage)
		out, err := cmd.Output()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		assert.Check(t, is.Equal(string(out), tc.want), tc.src)
		assert.Check(t, is.Equal(code, tc.code), tc.src)
	}
}

func TestExecModeMissingInterpreter(t *testing.T) {
	needEngine(t)
	t.Parallel()
	r := tool(t, nil, "", "run", "--image", refImage, "--code", "print(1)", "--", "python3", "-")
	assert.Check(t, is.Equal(r.code, 127), r.stderr)
	assert.Check(t, is.Equal(r.res.Verdict, "command_not_found"))
	assert.Check(t, is.Contains(r.stderr, `"python3": executable file not found`))
	assertGone(t, r.res.Container)
	assertRunGone(t, r.res.RunID)
}

func TestReadmeBatchMakefile(t *testing.T) {
	needEngine(t)
	for _, bin := range []string{"make", "jq"} {
		if _, err := exec.LookPath(bin); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("CI=true and no %s (scripts/test.sh installs jq): %v", bin, err)
			}
			t.Skipf("SKIPPED, NOT PASSED: no %s: %v", bin, err)
		}
	}
	t.Parallel()
	dir := workdir(t)
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "Makefile"), []byte(readmeBlock(t, "make", "")), 0o644))
	assert.NilError(t, os.Mkdir(filepath.Join(dir, "samples"), 0o755))
	for name, src := range map[string]string{"a.star": "1+2", "b.star": "print('it\\'s \"quoted\"')\nlen('x' * 10)"} {
		assert.NilError(t, os.WriteFile(filepath.Join(dir, "samples", name), []byte(src), 0o644))
	}
	cmd := exec.Command("make", "-C", dir, "check-samples")
	cmd.Env = append(os.Environ(), "SYNAPSE_IMAGE="+refImage)
	out, err := cmd.CombinedOutput()
	assert.NilError(t, err, string(out))
	results, err := os.ReadFile(filepath.Join(dir, "results.jsonl"))
	assert.NilError(t, err)
	rs := parseBatch(t, string(results))
	assert.Assert(t, is.Len(rs, 2))
	got := map[any]string{}
	for _, r := range rs {
		assert.Check(t, is.Equal(r.Verdict, "ok"), "%+v", r)
		got[r.ID] = string(r.Result)
	}
	assert.DeepEqual(t, got, map[any]string{"samples/a.star": "3", "samples/b.star": "10"})
}
