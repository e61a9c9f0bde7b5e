package tests

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/poll"
)

// A judge's checker, live: the program's container, then the checker's.

// checkedResult is what the checker tests read of a result.
type checkedResult struct {
	Verdict   string `json:"verdict"`
	ExitCode  int    `json:"exit_code"`
	Container string `json:"container"`
	RunID     string `json:"run_id"`
	Error     *struct {
		Type, Message string
	} `json:"error"`
	Checker *struct {
		RunID   string `json:"run_id"`
		Verdict string `json:"verdict"`
		Error   *struct{ Type, Message string }
		Compile *struct {
			Error *struct{ Type, Message string }
		} `json:"compile"`
	} `json:"checker"`
	Tests []struct {
		Name         string   `json:"name"`
		Verdict      string   `json:"verdict"`
		Points       *float64 `json:"points"`
		CheckedBytes *int64   `json:"checked_bytes"`
		OutputBytes  int64    `json:"output_bytes"`
		Error        *struct{ Type, Message string }
		Checker      *struct {
			ExitCode *int   `json:"exit_code"`
			Message  string `json:"message"`
			Error    *struct{ Type, Message string }
		} `json:"checker"`
	} `json:"tests"`
}

// checked runs src (on image, its file named file) over dir's tests,
// graded by the checker checker on checkerImage, and checks that neither
// run left a container behind.
func checked(t *testing.T, image, file, src, dir, checkerImage, checkerFile, checker string, flags ...string) (toolResult, checkedResult) {
	t.Helper()
	work := t.TempDir()
	prog, chk := filepath.Join(work, file), filepath.Join(work, checkerFile)
	assert.NilError(t, os.WriteFile(prog, []byte(src), 0o644))
	assert.NilError(t, os.WriteFile(chk, []byte(checker), 0o644))
	args := append([]string{"run", "--image", image, "--file", prog, "--tests", dir, "--checker", chk, "--checker-image", checkerImage}, flags...)
	r := tool(t, nil, "", args...)
	var res checkedResult
	assert.NilError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout+r.stderr)
	if res.RunID != "" {
		assertRunGone(t, res.RunID)
	}
	if res.Checker != nil && res.Checker.RunID != "" {
		assertRunGone(t, res.Checker.RunID)
	}
	return r, res
}

// verdictsByName are res's tests' verdicts, by name.
func verdictsByName(res checkedResult) map[string]string {
	m := map[string]string{}
	for _, tc := range res.Tests {
		m[tc.Name] = tc.Verdict
	}
	return m
}

// pairChecker is a Python checker of "print two numbers whose sum is N":
// any such pair is right (the expected output is one of many); a comma
// between them is right but laid out wrong (2); N of 100 scores half a
// point (7), the score on its stdout.
const pairChecker = `import sys
n = int(open(sys.argv[1]).read())
out = open(sys.argv[2]).read()
ans = open(sys.argv[3]).read()
if "," in out:
    sys.stderr.write("a comma between the numbers\n"); sys.exit(2)
try:
    a, b = map(int, out.split())
except ValueError:
    sys.stderr.write("not two numbers: %r\n" % out[:40]); sys.exit(1)
if a + b != n:
    sys.stderr.write("%d + %d is not %d (one answer: %s)\n" % (a, b, n, ans.strip())); sys.exit(1)
if n == 100:
    print(0.5); sys.exit(7)
sys.stderr.write("ok %d + %d\n" % (a, b))
`

// pairProgram is a C solution: n-1 and 1, except 7 (wrong) and 42 (a
// comma).
const pairProgram = `#include <stdio.h>
int main(void) {
	long n;
	if (scanf("%ld", &n) != 1) return 2;
	if (n == 7) { printf("3 3\n"); return 0; }
	if (n == 42) { printf("21,21\n"); return 0; }
	printf("%ld 1\n", n - 1);
	return 0;
}
`

// TestCheckerGradesAnyRightAnswer: a Python checker accepts answers that
// differ from the expected output, refuses a wrong one with its message,
// grades a layout a presentation error and a scored test points; the
// program's run failing a test (a crash) leaves that test ungraded, its
// verdict its own. The request's verdict is its worst test's.
func TestCheckerGradesAnyRightAnswer(t *testing.T) {
	needEngine(t)
	t.Parallel()
	dir := testDir(t, [3]string{"1", "3", "1 2\n"}, [3]string{"2", "10", "5 5\n"}, [3]string{"3", "7", "4 3\n"},
		[3]string{"4", "42", "21 21\n"}, [3]string{"5", "100", "50 50\n"}, [3]string{"6", "x", "\n"})
	r, res := checked(t, cImage, "pair.c", pairProgram, dir, pythonImage, "check.py", pairChecker)
	assert.Check(t, is.DeepEqual(verdictsByName(res), map[string]string{"1": "ok", "2": "ok", "3": "wrong_answer",
		"4": "presentation_error", "5": "points", "6": "program_error"}), r.stdout)
	assert.Check(t, is.Equal(res.Verdict, "program_error"))
	assert.Check(t, is.Equal(r.code, 1))
	assert.Assert(t, res.Checker != nil, r.stdout)
	assert.Check(t, is.Equal(res.Checker.Verdict, "ok"))
	for _, tc := range res.Tests {
		switch tc.Name {
		case "6":
			assert.Check(t, tc.Checker == nil && tc.CheckedBytes == nil, "the program's failure is not graded: %+v", tc)
		case "3":
			assert.Assert(t, tc.Checker != nil && tc.Checker.ExitCode != nil, "%+v", tc)
			assert.Check(t, is.Equal(*tc.Checker.ExitCode, 1))
			assert.Check(t, is.Equal(tc.Checker.Message, "3 + 3 is not 7 (one answer: 4 3)\n"))
		case "5":
			assert.Assert(t, tc.Points != nil, r.stdout)
			assert.Check(t, is.Equal(*tc.Points, 0.5))
		case "2":
			assert.Assert(t, tc.CheckedBytes != nil)
			assert.Check(t, is.Equal(*tc.CheckedBytes, int64(len("9 1\n"))))
		}
	}

	// Without the crash: the wrong answer is the worst, exit 4, named.
	assert.NilError(t, os.Remove(filepath.Join(dir, "6.in")))
	r, res = checked(t, cImage, "pair.c", pairProgram, dir, pythonImage, "check.py", pairChecker)
	assert.Check(t, is.Equal(res.Verdict, "wrong_answer"), r.stdout)
	assert.Check(t, is.Equal(r.code, 4))
	if assert.Check(t, res.Error != nil) {
		assert.Check(t, is.Equal(res.Error.Message, `test "3": the checker: wrong answer: 3 + 3 is not 7 (one answer: 4 3)`))
	}
}

// outputChecker passes a test when its output is as the input says:
// "nul" (a MiB of NUL bytes), "none" (nothing), or "42" exactly; it
// fails on "huge", which it must never be shown.
const outputChecker = `import sys
want = open(sys.argv[1]).read().split()[0]
out = open(sys.argv[2], "rb").read()
sys.stderr.write("%d bytes\n" % len(out))
ok = {"huge": False, "nul": out == b"\0" * (1 << 20), "none": out == b"", "42": out == b"42\n"}[want]
sys.exit(0 if ok else 1)
`

// outputProgram writes what its input names: a huge output (20 MiB), a
// MiB of NUL bytes, nothing; or 42, and a child that outlives it, which
// goes on writing to the program's stdout and tries every file under
// /tmp and the test's files' likely places, after the program exited.
const outputProgram = `#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <dirent.h>
int main(void) {
	char what[16] = "";
	if (scanf("%15s", what) != 1) return 2;
	if (!strcmp(what, "huge")) { static char b[1 << 20]; memset(b, 'x', sizeof b); for (int i = 0; i < 20; i++) fwrite(b, 1, sizeof b, stdout); }
	if (!strcmp(what, "nul")) { static char b[1 << 20]; fwrite(b, 1, sizeof b, stdout); }
	if (!strcmp(what, "42")) {
		printf("42\n");
		fflush(stdout);
		if (fork() == 0) {
			usleep(300 * 1000);
			for (int i = 0; i < 50; i++) {
				printf("rewritten\n");
				fflush(stdout);
				FILE *f = fopen("/tmp/check-0/output", "w");
				if (f) { fputs("rewritten\n", f); fclose(f); }
				usleep(100 * 1000);
			}
			_exit(0);
		}
	}
	return 0;
}
`

// TestCheckerSeesTheOutputAsItWas: a huge output, over the checker's
// bound, is a wrong answer the checker is never shown (a cut output could
// pass where the whole would not), the program's count kept; NUL bytes
// and an empty output reach the checker as they are, and a child that outlives
// the program, writing on and at the checker's files, changes nothing:
// it is killed with its test, and the checker's files are in another
// container.
func TestCheckerSeesTheOutputAsItWas(t *testing.T) {
	needEngine(t)
	t.Parallel()
	dir := testDir(t, [3]string{"huge", "huge", ""}, [3]string{"nul", "nul", ""}, [3]string{"none", "none", ""}, [3]string{"child", "42", "42\n"})
	r, res := checked(t, cImage, "out.c", outputProgram, dir, pythonImage, "check.py", outputChecker, "--timeout", "60s")
	assert.Check(t, is.DeepEqual(verdictsByName(res), map[string]string{"huge": "wrong_answer", "nul": "ok", "none": "ok", "child": "ok"}), r.stdout)
	assert.Check(t, is.Equal(r.code, 4))
	for _, tc := range res.Tests {
		if tc.Name == "huge" {
			assert.Check(t, tc.CheckedBytes == nil && tc.Checker == nil, "%+v", tc)
			assert.Check(t, is.Equal(tc.OutputBytes, int64(20<<20)))
			if assert.Check(t, tc.Error != nil) {
				assert.Check(t, is.Equal(tc.Error.Message, "its stdout, 20971520 bytes, is over what a checker is given (8388608 bytes a test, 268435456 in all); it was not graded"))
			}
			continue
		}
		assert.Assert(t, tc.CheckedBytes != nil && tc.Checker != nil, "%+v", tc)
		switch tc.Name {
		case "nul":
			assert.Check(t, is.Equal(tc.Checker.Message, "1048576 bytes\n"))
		case "child":
			assert.Check(t, is.Equal(*tc.CheckedBytes, int64(3)))
		}
	}
}

// TestCheckerFailureIsTheJudges: a checker that exits 3, one that
// crashes, one that hangs past its limit, one that exits 4 (none of
// testlib's), and one that does not compile: each a judge_failure (exit
// 5) naming the checker, never ok and never the program's; the program's
// run is there as it was.
func TestCheckerFailureIsTheJudges(t *testing.T) {
	needEngine(t)
	t.Parallel()
	dir := testDir(t, [3]string{"fail", "3", "x"}, [3]string{"crash", "11", "x"}, [3]string{"hang", "0", "x"}, [3]string{"other", "4", "x"})
	const checker = `import os, sys, time
n = int(open(sys.argv[1]).read())
if n == 0:
    while True: pass
if n == 11:
    os.kill(os.getpid(), 11)
sys.stderr.write("failing with %d\n" % n)
sys.exit(n)
`
	r, res := checked(t, cImage, "pair.c", pairProgram, dir, pythonImage, "check.py", checker, "--timeout", "60s")
	assert.Check(t, is.Equal(res.Verdict, "judge_failure"), r.stdout)
	assert.Check(t, is.Equal(r.code, 5))
	msgs := map[string]string{}
	for _, tc := range res.Tests {
		assert.Check(t, is.Equal(tc.Verdict, "judge_failure"), tc.Name)
		if assert.Check(t, tc.Checker != nil && tc.Checker.Error != nil, "%+v", tc) {
			msgs[tc.Name] = tc.Checker.Error.Message
		}
	}
	assert.Check(t, is.Equal(msgs["fail"], "the checker failed (exit 3): failing with 3\n"))
	assert.Check(t, is.Contains(msgs["crash"], "the checker did not grade the test: "))
	assert.Check(t, is.Contains(msgs["crash"], "segmentation fault"))
	assert.Check(t, is.Contains(msgs["hang"], "the checker did not grade the test: "))
	assert.Check(t, is.Contains(msgs["hang"], "10s"))
	assert.Check(t, is.Equal(msgs["other"], "the checker exited 4, none of testlib's grades (0, 1, 2, 7)"))
	if assert.Check(t, res.Error != nil) {
		// The first of its worst tests, by name.
		assert.Check(t, strings.HasPrefix(res.Error.Message, `test "crash": the checker did not grade the test: `), res.Error.Message)
	}
}

// TestCheckerRefused: a checker with no tests, without its image, with
// an image that is no ID, or beside --compare is refused before anything
// starts, naming what is wrong.
func TestCheckerRefused(t *testing.T) {
	needEngine(t)
	t.Parallel()
	dir := testDir(t, [3]string{"1", "3", "1 2\n"})
	chk := filepath.Join(t.TempDir(), "check.py")
	assert.NilError(t, os.WriteFile(chk, []byte(pairChecker), 0o644))
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--checker", chk, "--checker-image", pythonImage}, "--checker: there are no tests to grade"},
		{[]string{"--tests", dir, "--checker", chk}, "--checker: needs --checker-image"},
		{[]string{"--tests", dir, "--checker-image", pythonImage}, "--checker-image: there is no --checker"},
		{[]string{"--tests", dir, "--checker", chk, "--checker-image", "python:3"}, "checker: image: "},
		{[]string{"--tests", dir, "--checker", chk, "--checker-image", pythonImage, "--compare", "exact"}, "with a checker, the checker compares"},
	} {
		r := tool(t, nil, "", append([]string{"run", "--image", cImage, "--code", pairProgram}, c.args...)...)
		assert.Check(t, is.Equal(r.code, 2), "%v: %s", c.args, r.stdout)
		assert.Check(t, is.Contains(r.stdout, c.msg), "%v", c.args)
	}
}

// pairCppChecker is pairChecker in C++, testlib's conventions without
// testlib.h: argv[1..3] the input, output and answer files, exit 0, 1, 2
// or 7 (its score on stdout), its message on stderr.
const pairCppChecker = `#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
int main(int argc, char **argv) {
	if (argc != 4) return 3;
	std::ifstream in(argv[1]), out(argv[2]);
	std::stringstream text;
	text << out.rdbuf();
	long n, a, b;
	in >> n;
	if (text.str().find(',') != std::string::npos) { std::fputs("a comma\n", stderr); return 2; }
	std::istringstream got(text.str());
	if (!(got >> a >> b)) { std::fputs("not two numbers\n", stderr); return 1; }
	if (a + b != n) { std::fprintf(stderr, "%ld + %ld is not %ld\n", a, b, n); return 1; }
	if (n == 100) { std::printf("0.5\n"); return 7; }
	return 0;
}
`

// TestCheckerInCpp: a C++ checker, compiled once in its own container,
// grades a Python solution's tests as the Python checker does; one that
// does not compile fails every test as the judge's, the compiler's words
// in the checker's run, never the program's fault.
func TestCheckerInCpp(t *testing.T) {
	needKind(t, "cpp")
	t.Parallel()
	dir := testDir(t, [3]string{"1", "3", "1 2\n"}, [3]string{"2", "10", "5 5\n"}, [3]string{"3", "7", "4 3\n"},
		[3]string{"4", "42", "21 21\n"}, [3]string{"5", "100", "50 50\n"})
	const prog = "n = int(input())\nprint({7: '3 3', 42: '21,21'}.get(n, '%d 1' % (n - 1)))\n"
	r, res := checked(t, pythonImage, "pair.py", prog, dir, images["cpp"], "check.cpp", pairCppChecker)
	assert.Check(t, is.DeepEqual(verdictsByName(res), map[string]string{"1": "ok", "2": "ok", "3": "wrong_answer",
		"4": "presentation_error", "5": "points"}), r.stdout)
	assert.Check(t, is.Equal(r.code, 4))
	if assert.Check(t, res.Checker != nil && res.Checker.Compile != nil, r.stdout) {
		assert.Check(t, res.Checker.Compile.Error == nil, r.stdout)
	}

	r, res = checked(t, pythonImage, "pair.py", prog, dir, images["cpp"], "check.cpp", "int main() { return x; }\n")
	assert.Check(t, is.Equal(res.Verdict, "judge_failure"), r.stdout)
	assert.Check(t, is.Equal(r.code, 5))
	if assert.Check(t, res.Checker != nil, r.stdout) {
		assert.Check(t, is.Equal(res.Checker.Verdict, "compile_error"))
	}
	for _, tc := range res.Tests {
		assert.Check(t, is.Equal(tc.Verdict, "judge_failure"), tc.Name)
		if assert.Check(t, tc.Checker != nil && tc.Checker.Error != nil, "%+v", tc) {
			assert.Check(t, is.Contains(tc.Checker.Error.Message, "'x' was not declared"), tc.Name)
		}
	}
}

// TestCheckerInBatch: a batch line's "checker" grades its tests as
// --checker does, the program in the pool's warm container and the
// checker in one of its own; a line without one beside it is compared as
// ever; neither leaves a container behind.
func TestCheckerInBatch(t *testing.T) {
	needEngine(t)
	t.Parallel()
	line := func(id string, checker bool) string {
		m := map[string]any{"id": id, "source": pairProgram, "tests": []map[string]string{
			{"name": "1", "stdin": "3", "expect": "2 1\n"}, {"name": "2", "stdin": "10", "expect": "9 1\n"}}}
		if checker {
			m["checker"] = map[string]string{"source": pairChecker, "image": pythonImage}
			m["tests"] = []map[string]string{{"name": "1", "stdin": "3", "expect": "1 2\n"}, {"name": "2", "stdin": "10", "expect": "5 5\n"}}
		}
		b, err := json.Marshal(m)
		assert.NilError(t, err)
		return string(b) + "\n"
	}
	wrong := strings.Replace(line("wrong", true), `"10"`, `"7"`, 1)
	r := tool(t, nil, line("graded", true)+line("compared", false)+wrong, "batch", "--image", cImage, "--ordered", "--parallel", "2")
	var got []checkedResult
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var res checkedResult
		assert.NilError(t, json.Unmarshal([]byte(l), &res), l)
		got = append(got, res)
		assertRunGone(t, res.RunID)
		if res.Checker != nil {
			assertRunGone(t, res.Checker.RunID)
		}
	}
	assert.Assert(t, is.Len(got, 3), r.stdout+r.stderr)
	assert.Check(t, is.Equal(got[0].Verdict, "ok"), r.stdout)
	assert.Check(t, got[0].Checker != nil && got[0].Checker.Verdict == "ok", r.stdout)
	assert.Check(t, is.Equal(got[1].Verdict, "ok"))
	assert.Check(t, got[1].Checker == nil, "a line without a checker is compared")
	assert.Check(t, is.DeepEqual(verdictsByName(got[2]), map[string]string{"1": "ok", "2": "wrong_answer"}), r.stdout)
	assert.Check(t, is.Equal(r.code, 4), r.stderr)
}

// TestCheckerPassInterrupted: SIGINT or SIGTERM while the checker runs
// (the program's container already gone) is the caller's stop, not the
// checker's failure: interrupted, 130 or 143, both runs' containers gone
// and the outputs kept for the checker removed.
func TestCheckerPassInterrupted(t *testing.T) {
	needEngine(t)
	t.Parallel()
	dir := testDir(t, [3]string{"a", "5", "x"})
	const checker = "import time\ntime.sleep(60)\n"
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		work, tmp := t.TempDir(), t.TempDir()
		prog, chk := filepath.Join(work, "pair.c"), filepath.Join(work, "check.py")
		assert.NilError(t, os.WriteFile(prog, []byte(pairProgram), 0o644))
		assert.NilError(t, os.WriteFile(chk, []byte(checker), 0o644))
		cmd := exec.Command(toolBin, "run", "--image", cImage, "--file", prog, "--tests", dir,
			"--checker", chk, "--checker-image", pythonImage, "--timeout", "60s")
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		assert.NilError(t, cmd.Start())
		t.Cleanup(func() { _ = cmd.Process.Kill() })
		// The checker's container: the python image's, started by this
		// supervisor (its owner label names its pid).
		owner := fmt.Sprintf(":%d:", cmd.Process.Pid)
		poll.WaitOn(t, func(poll.LogT) poll.Result {
			out, _ := exec.Command("docker", "ps", "--filter", "ancestor="+pythonImage, "--filter", "status=running",
				"--format", `{{.Label "io.synapse-isolation.owner"}}`).Output()
			if strings.Contains(string(out), owner) {
				return poll.Success()
			}
			return poll.Continue("no checker container of pid %d yet", cmd.Process.Pid)
		}, poll.WithTimeout(90*time.Second), poll.WithDelay(100*time.Millisecond))
		time.Sleep(time.Second) // into the checker's sleep
		assert.NilError(t, cmd.Process.Signal(tc.sig))
		err := cmd.Wait()
		var ee *exec.ExitError
		assert.Assert(t, errors.As(err, &ee), "%v: %s", err, stdout.String())
		assert.Check(t, is.Equal(ee.ExitCode(), tc.code), "%s: %s", tc.sig, stdout.String())
		var res checkedResult
		assert.NilError(t, json.Unmarshal(stdout.Bytes(), &res), stdout.String())
		assert.Check(t, is.Equal(res.Verdict, "interrupted"), stdout.String())
		assertRunGone(t, res.RunID)
		if assert.Check(t, res.Checker != nil, stdout.String()) {
			assertRunGone(t, res.Checker.RunID)
		}
		left, err := os.ReadDir(tmp)
		assert.NilError(t, err)
		assert.Check(t, is.Len(left, 0), "the checker's outputs were left in TMPDIR")
	}
}
