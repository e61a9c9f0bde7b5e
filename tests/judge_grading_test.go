package tests

import (
	"encoding/json"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// The judge's graders beyond line by line: live, through the Python image.

// testVerdicts is what the grading tests read of a judged result: each
// test's verdict and first differing line.
type testVerdicts struct {
	Verdict string `json:"verdict"`
	Tests   []struct {
		Name    string `json:"name"`
		Verdict string `json:"verdict"`
		Line    int64  `json:"line"`
	} `json:"tests"`
}

// piProgram prints pi times its input, to 15 places, and a word.
const piProgram = "import math, sys\nprint(f'{math.pi * float(sys.stdin.read()):.15f} done')\n"

// TestJudgeFloatTolerance: --compare float:1e-6:1e-9 accepts a 1e-9
// difference and, by the relative epsilon, a 6e-4 one on 3e6; it refuses
// a 1e-3 difference, and a word that differs only in case, at its line.
func TestJudgeFloatTolerance(t *testing.T) {
	needEngine(t)
	t.Parallel()
	dir := files(t, map[string]string{
		"prog.py": piProgram,
		"1.in":    "1", "1.out": "3.141592654 done\n", // 3.5e-10 off
		"2.in": "1", "2.out": "3.142592653589793 done\n", // 1e-3 off
		"3.in": "1", "3.out": "3.141592653589793 DONE\n", // a word is exact
		"4.in": "1e6", "4.out": "3141592.653 done\n", // 5.9e-4 off, within 1e-9 of 3.1e6
		"5.in": "2", "5.out": "\n6.283185307\t done  \n\n", // 1.8e-10 off; whitespace as lines has it
	})
	r, _ := judgeRun(t, dir, "", "run", "--image", pythonImage, "--file", "@prog.py", "--compare", "float:1e-6:1e-9",
		"--tests", dir, "--", "python3", "-")
	var got testVerdicts
	assert.NilError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)
	assert.Check(t, is.Equal(got.Verdict, "wrong_answer"), r.stderr)
	want := map[string]string{"1": "ok", "2": "wrong_answer", "3": "wrong_answer", "4": "ok", "5": "wrong_answer"}
	assert.Assert(t, is.Len(got.Tests, len(want)), r.stdout)
	for _, tc := range got.Tests {
		assert.Check(t, is.Equal(tc.Verdict, want[tc.Name]), "test %s: %+v", tc.Name, tc)
		if tc.Verdict == "wrong_answer" {
			assert.Check(t, is.Equal(tc.Line, int64(1)), "test %s", tc.Name)
		}
	}

	line, err := json.Marshal(map[string]any{"id": 1, "source": piProgram, "compare": "float:0.001",
		"tests": []map[string]string{{"name": "a", "stdin": "1", "expect": "3.1416 done"}, {"name": "b", "stdin": "1", "expect": "3.1 done"}}})
	assert.NilError(t, err)
	r = tool(t, nil, string(line)+"\n"+`{"id":2,"source":"1","compare":"float:-1","tests":[{"name":"a","stdin":"","expect":""}]}`+"\n",
		"batch", "--image", pythonImage, "--ordered", "--", "python3", "-")
	rs := parseBatch(t, r.stdout)
	assert.Assert(t, is.Len(rs, 2), r.stderr)
	var batched testVerdicts
	assert.NilError(t, json.Unmarshal([]byte(strings.SplitN(r.stdout, "\n", 2)[0]), &batched))
	assert.Assert(t, is.Len(batched.Tests, 2), r.stdout)
	assert.Check(t, is.Equal(batched.Tests[0].Verdict, "ok"))
	assert.Check(t, is.Equal(batched.Tests[1].Verdict, "wrong_answer"))
	assertGone(t, rs[0].Container)
	assert.Check(t, is.Equal(rs[1].Verdict, "rejected"))
	assert.Assert(t, rs[1].Error != nil)
	assert.Check(t, is.Contains(rs[1].Error.Message, `compare "float:-1": ABS must not be negative`))
}

// TestJudgeTimeFactor: --test-timeout and --cpu-time name the C limit; the
// Java image's time factor of 2 doubles each test's, which its result
// says, and a loop runs past the C limit to its own; the C image's are
// as given. argv shows the factor and audit reads it.
func TestJudgeTimeFactor(t *testing.T) {
	java, c := languages[2], languages[0]
	assert.Assert(t, java.name == "java" && c.name == "c")
	java.need(t)
	t.Parallel()
	dir := testDir(t, [3]string{"1", "1 2\n", "3\n"}, [3]string{"2", "-2 0\n", "0\n"})
	flags := []string{"--timeout", "30s", "--test-timeout", "1s", "--cpu-time", "1s"}
	r := judge(t, java, java.src, dir, flags...)
	assert.Assert(t, is.Len(r.Tests, 2), "%+v", r)
	for _, tc := range r.Tests {
		assert.Check(t, is.Equal(tc.TimeLimitMS, int64(2000)), "test %s", tc.Name)
		assert.Check(t, is.Equal(tc.CPUTimeLimitMS, int64(2000)), "test %s", tc.Name)
	}
	assert.Check(t, is.Equal(r.Tests[0].Verdict, "ok"))
	loop := r.Tests[1]
	assert.Check(t, loop.Verdict == "cpu_timeout" || loop.Verdict == "timeout", loop.Verdict)
	// Stopped at its own limit, so past the C limit: one CPU spends no
	// more CPU time than wall time.
	assert.Check(t, loop.WallMS >= 2000, "the loop ran %d ms", loop.WallMS)

	r = judge(t, c, c.src, dir, flags...)
	assert.Assert(t, is.Len(r.Tests, 2), "%+v", r)
	assert.Check(t, is.Equal(r.Tests[1].TimeLimitMS, int64(1000)), "no factor: the C limit")
	assert.Check(t, is.Equal(r.Tests[1].CPUTimeLimitMS, int64(1000)))

	argv := tool(t, nil, "", append([]string{"argv", "--image", java.image(), "--format", "json"}, flags...)...)
	assert.Assert(t, is.Equal(argv.code, 0), argv.stderr)
	assert.Check(t, is.Contains(argv.stdout, `"--test-timeout","1s","--time-factor","2",`))
	audit := tool(t, nil, argv.stdout, "audit")
	assert.Check(t, is.Contains(audit.stdout, "--cpu-time 1s, --test-timeout 1s, --time-factor 2 (each test's limits times 2)"), audit.stdout)
}
