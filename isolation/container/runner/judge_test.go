package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// judgeRequest is the request frame of src with tests, then their data,
// as the host sends them: each test is a name, its stdin and its
// expected output ("-" for none).
func judgeRequest(t *testing.T, src string, tests ...[3]string) string {
	t.Helper()
	var req protocol.Request
	req.Source = src
	for _, tc := range tests {
		test := protocol.Test{Name: tc[0], Stdin: []byte(tc[1])}
		if tc[2] != "-" {
			test.Expect = []byte(tc[2])
		}
		req.Tests = append(req.Tests, test)
	}
	in := req
	in.Tests = nil
	for _, tc := range req.Tests {
		tc.StdinBytes = int64(len(tc.Stdin))
		if tc.Expect != nil {
			n := int64(len(tc.Expect))
			tc.ExpectBytes = &n
		}
		in.Tests = append(in.Tests, tc)
	}
	b, err := json.Marshal(in)
	assert.NilError(t, err)
	var data strings.Builder
	for _, tc := range req.Tests {
		data.Write(tc.Stdin)
		data.Write(tc.Expect)
	}
	return string(b) + "\n" + data.String()
}

// verdicts lists each test's verdict.
func verdicts(r protocol.Response) []string {
	var out []string
	for _, t := range r.Tests {
		out = append(out, t.Verdict)
	}
	return out
}

// TestRunnerJudgesEachTest: one program, a fresh process per test with
// its own stdin, judged against its expected output line by line
// (trailing whitespace ignored); a failing test does not stop the next.
func TestRunnerJudgesEachTest(t *testing.T) {
	t.Parallel()
	src := `read a b; [ "$a" = boom ] && { echo bad input >&2; exit 3; }; echo $((a + b))`
	r := runRunner(t, judgeRequest(t, src,
		[3]string{"one", "1 2\n", "3  \n\n"},
		[3]string{"two", "2 2\n", "5\n"},
		[3]string{"three", "boom 1\n", "1\n"},
		[3]string{"four", "4 4\n", "-"},
	), "--exec", "sh")
	assert.Assert(t, r.OK, "judged: the verdicts are the tests'")
	assert.DeepEqual(t, verdicts(r), []string{"ok", "wrong_answer", "program_error", "ok"})
	assert.Equal(t, *r.Tests[0].Match, true)
	assert.Equal(t, *r.Tests[1].Match, false)
	assert.Equal(t, r.Tests[1].Line, int64(1))
	assert.Equal(t, r.Tests[1].Output, "4\n")
	assert.Assert(t, r.Tests[2].Match == nil, "a test that failed is not compared")
	assert.Equal(t, r.Tests[2].Error.Message, "exit status 3: bad input")
	assert.Equal(t, r.Tests[2].Exit.Code, 3)
	assert.Assert(t, r.Tests[3].Match == nil, "no expected output, nothing to compare")
	assert.Equal(t, r.Tests[3].Output, "8\n")
	for _, tc := range r.Tests {
		assert.Assert(t, tc.Usage != nil && tc.Usage.CPUMicros != nil && tc.WallMicros > 0, "%+v", tc)
	}
}

// TestRunnerTimesOutOneTest: a test that never ends is stopped at its
// share of the time and the tests after it still run.
func TestRunnerTimesOutOneTest(t *testing.T) {
	t.Parallel()
	src := `read x; [ "$x" = loop ] && while :; do :; done; echo $x`
	r := runRunner(t, judgeRequest(t, src,
		[3]string{"1", "a\n", "a\n"}, [3]string{"2", "loop\n", "x\n"}, [3]string{"3", "c\n", "c\n"},
	), "--timeout", "3s", "--exec", "sh")
	assert.DeepEqual(t, verdicts(r), []string{"ok", "timeout", "ok"})
	// Test 2's share, by construction: at most half of the 3 s less the
	// response's reserve (test 1 took some of it), and it ran at least
	// that long (the message rounds it to the millisecond).
	limit, ok := strings.CutPrefix(r.Tests[1].Error.Message, "stopped at its wall-clock limit of ")
	assert.Assert(t, ok, r.Tests[1].Error.Message)
	share, err := time.ParseDuration(limit)
	assert.NilError(t, err)
	assert.Assert(t, share <= (3*time.Second-judgeReserve)/2, share)
	assert.Assert(t, time.Duration(r.Tests[1].WallMicros)*time.Microsecond >= share.Round(time.Millisecond)-time.Millisecond)

	r = runRunner(t, judgeRequest(t, src,
		[3]string{"1", "loop\n", "x\n"}, [3]string{"2", "b\n", "b\n"},
	), "--timeout", "3s", "--test-timeout", "500ms", "--exec", "sh")
	assert.DeepEqual(t, verdicts(r), []string{"timeout", "ok"})
	assert.Equal(t, r.Tests[0].Error.Message, "stopped at its wall-clock limit of 500ms")
}

// TestRunnerCompilesOnceAndRunsFromAMemfd: a language's compile step runs
// once in the working directory, and the file it leaves runs from a
// sealed memfd, never by its path (here /tmp, in a container, is noexec).
func TestRunnerCompilesOnceAndRunsFromAMemfd(t *testing.T) {
	t.Parallel()
	r := runRunner(t, judgeRequest(t, "ignored by cp",
		[3]string{"echo", "hello\n", "hello\n"}, [3]string{"other", "a\n", "b\n"},
	), "--source", "main.c", "--compile", `["cp","/bin/cat","main"]`, "--exec", "./main")
	assert.Assert(t, r.Compile != nil && r.Compile.Error == nil, "%+v", r.Compile)
	assert.DeepEqual(t, verdicts(r), []string{"ok", "wrong_answer"})

	r = runRunner(t, `{"source":"x"}`, "--source", "main.c", "--compile", `["sh","-c","echo 'main.c:1:1: error: expected something' >&2; echo '    | ^' >&2; exit 1"]`, "--exec", "./main")
	assert.Equal(t, r.Error.Type, protocol.ErrCompile)
	assert.Equal(t, r.Error.Message, "compilation failed: exit status 1: main.c:1:1: error: expected something")
	assert.Assert(t, strings.Contains(r.Compile.Stderr, "expected something"))
	assert.Assert(t, r.Tests == nil)

	// go build names no "error": its first line placed in the source is.
	r = runRunner(t, `{"source":"x"}`, "--source", "main.go", "--compile",
		`["sh","-c","printf '# command-line-arguments\\n./main.go:3:23: undefined: x\\n./main.go:4:2: undefined: y\\n' >&2; exit 1"]`, "--exec", "./main")
	assert.Equal(t, r.Error.Message, "compilation failed: exit status 1: ./main.go:3:23: undefined: x")

	r = runRunner(t, `{"source":"x","stdin":"from stdin"}`, "--source", "main.c", "--compile", `["cp","/bin/cat","main"]`, "--exec", "./main")
	assert.Assert(t, r.OK, "%+v", r.Error)
	assert.Equal(t, r.Output, "from stdin", "without tests a compiled program runs once on the request's stdin")
}

// TestFairShares: small wants are met whole, the rest share what is left.
func TestFairShares(t *testing.T) {
	assert.DeepEqual(t, fairShares([]int{10, 100, 1000}, 300), []int{10, 100, 190})
	assert.DeepEqual(t, fairShares([]int{500, 500, 500}, 300), []int{100, 100, 100})
	assert.DeepEqual(t, fairShares([]int{0, 0}, 300), []int{0, 0})
}

// TestRunnerDropsMatchedOutputFirst: when the tests' output passes the
// shared bound, the tests that matched give theirs up (their counts
// kept), and the one that did not keeps its head and tail.
func TestRunnerDropsMatchedOutputFirst(t *testing.T) {
	t.Parallel()
	line := strings.Repeat("a", 99) + "\n"
	big := strings.Repeat(line, 400) // 40000 bytes
	src := `read x; i=0; while [ $i -lt 400 ]; do echo "$x"; i=$((i+1)); done`
	r := runRunner(t, judgeRequest(t, src,
		[3]string{"1", line, big}, [3]string{"2", line, big}, [3]string{"3", "b\n", big},
	), "--exec", "sh")
	assert.DeepEqual(t, verdicts(r), []string{"ok", "ok", "wrong_answer"})
	for _, tc := range r.Tests[:2] {
		assert.Assert(t, tc.Dropped && tc.Output == "" && tc.OutputBytes == 40000 && tc.OutputTruncated, "%+v", tc.Step)
	}
	w := r.Tests[2]
	assert.Assert(t, !w.Dropped && w.OutputBytes == 800 && w.Output == strings.Repeat("b\n", 400), "%+v", w.Step)

	// All fit: nothing is dropped.
	r = runRunner(t, judgeRequest(t, `read x; echo "$x"`, [3]string{"1", "a\n", "a\n"}, [3]string{"2", "b\n", "c\n"}), "--exec", "sh")
	assert.Assert(t, !r.Tests[0].Dropped && r.Tests[0].Output == "a\n")
}
