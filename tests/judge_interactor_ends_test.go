package tests

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// The ends of an interactive test, live: which side ended first decides
// it, and what the program sends the interactor is bounded.

// TestInteractorVerdictByWhoEndedFirst: a guesser over its budget, which
// raises at the end of its input, is a wrong answer on every test, every
// run: the interactor ended first with its verdict, and the program's
// crash at the end of its input that followed is not its verdict. A
// program that raises on its own before the interactor ends is its own
// program_error, the interactor's later wrong answer notwithstanding.
func TestInteractorVerdictByWhoEndedFirst(t *testing.T) {
	needEngine(t)
	t.Parallel()
	dir := testDir(t, [3]string{"1", "1000\n", "999\n"}, [3]string{"2", "2000\n", "1999\n"},
		[3]string{"3", "3000\n", "2999\n"}, [3]string{"4", "4000\n", "3999\n"}, [3]string{"own", "7\n", "5\n"})
	r, res := played(t, pythonImage, "raises.py", dir, "--test-timeout", "10s", "--timeout", "120s")
	assert.Check(t, is.DeepEqual(verdictsOfInteracted(res), map[string]string{
		"1": "wrong_answer", "2": "wrong_answer", "3": "wrong_answer", "4": "wrong_answer", "own": "program_error"}), r.stdout)
	assert.Check(t, is.Equal(res.Verdict, "program_error"))
	for name, tc := range testsByName(t, r, res) {
		if name == "own" {
			assert.Check(t, tc.Interactor.EndedFirst == "program", "%s: %s", name, r.stdout)
			assert.Check(t, is.Equal(tc.Interactor.Message, "the program's output ended after 1 guesses, none correct\n"), name)
			continue
		}
		assert.Check(t, is.Equal(tc.Interactor.EndedFirst, "interactor"), "%s: %s", name, r.stdout)
		assert.Check(t, is.Contains(tc.Interactor.Message, "over the budget of"), name)
	}
}

// TestInteractorStreamBound: a program that writes 1 GiB with no newline
// to a naive interactor (an unbounded readline) is stopped once what it
// sent passes the bound of a test, and the test is its own wrong
// answer, never judge_failure: the interactor is given no more than the
// bound and keeps its memory. The host's peak memory, the CLI's and its
// docker clients', stays far below what went by.
func TestInteractorStreamBound(t *testing.T) {
	needEngine(t)
	t.Parallel()
	dir := testDir(t, [3]string{"1", "100\n", "37\n"})
	work := t.TempDir()
	prog, inter := filepath.Join(work, "bigline.c"), filepath.Join(work, "naive.py")
	assert.NilError(t, os.WriteFile(prog, []byte(interactSrc(t, "bigline.c")), 0o644))
	assert.NilError(t, os.WriteFile(inter, []byte(interactSrc(t, "naive.py")), 0o644))
	r, peak := toolPeak(t, "run", "--image", cImage, "--file", prog, "--tests", dir, "--interactor", inter,
		"--interactor-image", pythonImage, "--test-timeout", "30s", "--timeout", "120s")
	var res interactedResult
	assert.NilError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout+r.stderr)
	assertRunGone(t, res.RunID)
	assert.Assert(t, res.Interactor != nil, r.stdout)
	assertRunGone(t, res.Interactor.RunID)
	assert.Check(t, is.DeepEqual(verdictsOfInteracted(res), map[string]string{"1": "wrong_answer"}), r.stdout)
	assert.Check(t, is.Equal(r.code, 4), r.stderr)
	tc := testNamed(t, r, res, "1")
	if assert.Check(t, tc.Error != nil, r.stdout) {
		assert.Check(t, is.Equal(tc.Error.Type, "wrong_answer"))
		assert.Check(t, is.Contains(tc.Error.Message, "its output to the interactor passed 8388608 bytes"))
	}
	assert.Check(t, tc.OutputBytes > 8<<20 && tc.OutputBytes < 1<<30, "%d bytes of output", tc.OutputBytes)
	assert.Check(t, is.Equal(tc.Interactor.EndedFirst, "program"), r.stdout)
	// The program's words over the bound never reached the interactor.
	assert.Check(t, is.Equal(tc.Interactor.Message, "not the secret: b'11111111111111111111', 8388608 bytes\n"), r.stdout)
	t.Logf("the program wrote %d bytes; the host's peak: %d bytes", tc.OutputBytes, peak)
	assert.Check(t, peak < 256<<20, "the host's peak: %d bytes", peak)
}

// toolPeak runs the tool as tool does, and returns the peak resident set
// of its process and of those it waited for (the docker clients): wait4's.
func toolPeak(t *testing.T, args ...string) (toolResult, int64) {
	t.Helper()
	cmd := exec.Command(toolBin, args...)
	r := runTool(t, cmd)
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	assert.Assert(t, ok)
	return r, ru.Maxrss << 10 // kilobytes on Linux
}
