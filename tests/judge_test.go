package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// The judge's data in and out: a program's stdin and the files beside it,
// its stdout and stderr apart, head and tail kept. Live, through the
// Python image, the Starlark image and batch; one test per refusal.

// judged is the part of a result the judge tests read beside runJSON.
type judged struct {
	runJSON
	Stderr          string `json:"stderr"`
	StderrTruncated bool   `json:"stderr_truncated"`
	StderrBytes     int64  `json:"stderr_bytes"`
}

// judgeRun runs the tool in dir (files named relative to it) with stdin,
// holds the container gone when one ran, and decodes its one result.
func judgeRun(t *testing.T, dir, stdin string, args ...string) (toolResult, judged) {
	t.Helper()
	cwd := filepath.Join(dir, ".")
	for i, a := range args { // relative paths are the test's files
		if strings.HasPrefix(a, "@") {
			args[i] = filepath.Join(cwd, a[1:])
		} else if name, path, ok := strings.Cut(a, "=@"); ok {
			args[i] = name + "=" + filepath.Join(cwd, path)
		}
	}
	r := tool(t, nil, stdin, args...)
	var j judged
	if strings.HasPrefix(r.stdout, "{") {
		assert.NilError(t, json.Unmarshal([]byte(r.stdout), &j), r.stdout)
	}
	if j.Container != "" {
		assertGone(t, j.Container)
		assertRunGone(t, j.RunID)
	}
	return r, j
}

// files writes name -> content into a fresh directory.
func files(t *testing.T, fs map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range fs {
		assert.NilError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	return dir
}

const sumProgram = "import sys\nprint(sum(int(x) for x in sys.stdin.read().split()))\n"

// TestJudgeStdinFromFileAndPipe: --stdin FILE and --stdin - give the
// program its input on stdin, `-- python3 -` as written; without --stdin
// its stdin is at end-of-file at once.
func TestJudgeStdinFromFileAndPipe(t *testing.T) {
	needEngine(t)
	t.Parallel()
	dir := files(t, map[string]string{"prog.py": sumProgram, "1.in": "3 4\n5\n"})
	r, j := judgeRun(t, dir, "", "run", "--image", pythonImage, "--stdin", "@1.in", "--file", "@prog.py", "--", "python3", "-")
	assert.Check(t, is.Equal(r.code, 0), r.stderr)
	assert.Check(t, is.Equal(j.Output, "12\n"))
	assert.Check(t, j.Sandboxed)

	r, j = judgeRun(t, dir, "10 20 30\n", "run", "--image", pythonImage, "--stdin", "-", "--file", "@prog.py", "--", "python3", "-")
	assert.Check(t, is.Equal(r.code, 0), r.stderr)
	assert.Check(t, is.Equal(j.Output, "60\n"))

	r, j = judgeRun(t, dir, "", "run", "--image", pythonImage, "--code", "import sys\nprint(repr(sys.stdin.read()))", "--", "python3", "-")
	assert.Check(t, is.Equal(r.code, 0), r.stderr)
	assert.Check(t, is.Equal(j.Output, "''\n"), "no --stdin: end-of-file at once")
}

// TestJudgeFromFile: --from-file helper.py makes `import helper` work, and
// --from-file data.txt=PATH `open("data.txt")`, in a working directory
// the program can write.
func TestJudgeFromFile(t *testing.T) {
	needEngine(t)
	t.Parallel()
	dir := files(t, map[string]string{
		"helper.py": "def twice(x):\n    return 2 * x\n",
		"numbers":   "21\n",
		"prog.py": "import os, helper\nn = int(open('data.txt').read())\nprint(helper.twice(n), os.getcwd(), sorted(os.listdir('.')))\n" +
			"open('out.txt', 'w').write('w')\nprint(open('out.txt').read())\n",
	})
	r, j := judgeRun(t, dir, "", "run", "--image", pythonImage, "--file", "@prog.py", "--from-file", "@helper.py",
		"--from-file", "data.txt=@numbers", "--", "python3", "-")
	assert.Check(t, is.Equal(r.code, 0), "%s %s", r.stderr, j.Stderr)
	assert.Check(t, is.Equal(j.Output, "42 /tmp/work ['__pycache__', 'data.txt', 'helper.py', 'main']\nw\n"),
		"the directory is the program's: Python writes its bytecode cache there")
}

// TestJudgeStreamsApart: output is the program's stdout alone, stderr its
// stderr, each with its own count, whatever order Python flushed them in.
func TestJudgeStreamsApart(t *testing.T) {
	needEngine(t)
	t.Parallel()
	src := "import sys\nprint('out 1')\nprint('warning: careful', file=sys.stderr)\nprint('out 2')\n"
	r, j := judgeRun(t, "", "", "run", "--image", pythonImage, "--code", src, "--", "python3", "-")
	assert.Check(t, is.Equal(r.code, 0), r.stderr)
	assert.Check(t, is.Equal(j.Output, "out 1\nout 2\n"))
	assert.Check(t, is.Equal(j.Stderr, "warning: careful\n"))
	assert.Check(t, is.Equal(j.OutputBytes, int64(12)))
	assert.Check(t, is.Equal(j.StderrBytes, int64(17)))
	assert.Check(t, !j.OutputTruncated && !j.StderrTruncated)

	// Text mode: stdout byte for byte on stdout, stderr on stderr.
	r, _ = judgeRun(t, "", "", "run", "--format", "text", "--image", pythonImage, "--code", src, "--", "python3", "-")
	assert.Check(t, is.Equal(r.code, 0), r.stderr)
	assert.Check(t, is.Equal(r.stdout, "out 1\nout 2\n"))
	assert.Check(t, is.Equal(r.stderr, "warning: careful\n"))
}

// TestJudgeHeadAndTail: 200 KB of numbered lines keep the first and the
// last line around a marker naming the bytes dropped; 100 KB then a raise
// keeps the traceback's last line.
func TestJudgeHeadAndTail(t *testing.T) {
	needEngine(t)
	t.Parallel()
	r, j := judgeRun(t, "", "", "run", "--image", pythonImage, "--code",
		"for i in range(1, 25001):\n    print('line %06d' % i)", "--", "python3", "-")
	assert.Check(t, is.Equal(r.code, 0), r.stderr)
	assert.Check(t, is.Equal(j.OutputBytes, int64(25000*12)))
	assert.Check(t, j.OutputTruncated)
	assert.Check(t, len(j.Output) <= 64<<10)
	assert.Check(t, strings.HasPrefix(j.Output, "line 000001\n"))
	assert.Check(t, strings.HasSuffix(j.Output, "\nline 025000\n"))
	assert.Check(t, is.Contains(j.Output, " bytes dropped ...]\n"))

	r, j = judgeRun(t, "", "", "run", "--image", pythonImage, "--code",
		"print('x' * 100000)\nraise ValueError('the last line')", "--", "python3", "-")
	assert.Check(t, is.Equal(r.code, 1), r.stderr)
	assert.Check(t, is.Equal(j.Verdict, "program_error"))
	assert.Check(t, strings.HasSuffix(j.Stderr, "ValueError: the last line\n"), j.Stderr)
	assert.Check(t, is.Contains(j.Stderr, `File "/tmp/work/main", line 2, in <module>`))
	assert.Check(t, j.OutputTruncated && !j.StderrTruncated)
	assert.Check(t, len(j.Output)+len(j.Stderr) <= 64<<10)
}

// TestJudgeStarlark: a Starlark program sees its input as the predeclared
// string stdin, and loads its files as modules.
func TestJudgeStarlark(t *testing.T) {
	needEngine(t)
	t.Parallel()
	dir := files(t, map[string]string{"1.in": "3 4 5", "lib.star": "def total(s):\n  n = 0\n  for x in s.split():\n    n += int(x)\n  return n\n"})
	r, j := judgeRun(t, dir, "", "run", "--image", refImage, "--stdin", "@1.in", "--from-file", "@lib.star",
		"--code", "load('lib.star', 'total')\nprint(total(stdin))\ntotal(stdin) * 2")
	assert.Check(t, is.Equal(r.code, 0), r.stderr)
	assert.Check(t, is.Equal(j.Output, "12\n"))
	assert.Check(t, is.Equal(string(j.Result), "24"))
	assert.Check(t, is.Equal(j.Stderr, ""))

	r, j = judgeRun(t, dir, "", "run", "--image", refImage, "--code", "len(stdin)")
	assert.Check(t, is.Equal(r.code, 0), r.stderr)
	assert.Check(t, is.Equal(string(j.Result), "0"), "empty without --stdin")
}

// TestJudgeBatch: each line's program gets its own stdin and files, in
// --ordered order, run in parallel.
func TestJudgeBatch(t *testing.T) {
	needEngine(t)
	t.Parallel()
	var in strings.Builder
	const prog = "import sys, helper\nprint(helper.f(sum(int(x) for x in sys.stdin.read().split())))\n"
	for i := 1; i <= 4; i++ {
		line, err := json.Marshal(map[string]any{"id": i, "source": prog, "stdin": fmt.Sprintf("%d %d\n", i, i),
			"files": map[string]string{"helper.py": fmt.Sprintf("def f(n):\n    return n * %d\n", 10*i)}})
		assert.NilError(t, err)
		in.Write(append(line, '\n'))
	}
	r := tool(t, nil, in.String(), "batch", "--image", pythonImage, "--ordered", "--parallel", "2", "--", "python3", "-")
	assert.Check(t, is.Equal(r.code, 0), r.stderr)
	rs := parseBatch(t, r.stdout)
	assert.Assert(t, is.Len(rs, 4), r.stdout)
	for i, res := range rs {
		n := i + 1
		assert.Check(t, is.Equal(res.ID, float64(n)), "--ordered")
		assert.Check(t, is.Equal(res.Output, fmt.Sprintf("%d\n", 2*n*10*n)), "line %d", n)
		assertGone(t, res.Container)
	}
}

// TestJudgeRefusals: each is refused with exit 2 before any container
// starts (--cli names no client at all, so one that tried would fail
// otherwise), naming what is wrong.
func TestJudgeRefusals(t *testing.T) {
	needEngine(t)
	t.Parallel()
	dir := files(t, map[string]string{"bad.in": "ok\xffno", "big.in": strings.Repeat("x", 70000), "50k.bin": strings.Repeat("\xff", 50000), "a.py": "x = 1\n", "prog.py": "print(1)\n",
		"60k.in": strings.Repeat("y", 60000), "long.py": "print(1)\n" + strings.Repeat("#", 6000) + "\n"})
	base := []string{"run", "--cli", "/nonexistent/docker", "--image", pythonImage}
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"stdin not UTF-8", "", []string{"--stdin", "@bad.in", "--code", "1"}, "stdin: invalid UTF-8 at offset 2"},
		{"stdin pipe not UTF-8", "ok\xffno", []string{"--stdin", "-", "--code", "1"}, "stdin: invalid UTF-8 at offset 2"},
		{"missing stdin file", "", []string{"--stdin", "@nope.in", "--code", "1"}, "--stdin: open "},
		{"stdin - with code -", "print(1)", []string{"--stdin", "-", "--code", "-"}, "conflicting options: --code - and --stdin -"},
		{"stdin - with file -", "print(1)", []string{"--stdin", "-", "--file", "-"}, "conflicting options: --file - and --stdin -"},
		{"name with /", "", []string{"--from-file", "a/b.py=@a.py", "--code", "1"}, `file name "a/b.py": must be a plain name, without /`},
		{"name with ..", "", []string{"--from-file", "..=@a.py", "--code", "1"}, `file name "..": must be a plain name, without ..`},
		{"name twice", "", []string{"--from-file", "@a.py", "--from-file", "a.py=@prog.py", "--code", "1"}, `file name "a.py" given twice`},
		// Bytes that are not text travel base64, counted so: 50000 are
		// over the bound once encoded.
		{"bytes past the bound as base64", "", []string{"--from-file", "bin=@50k.bin", "--code", "1"},
			`request: the program is 1 bytes, file "bin" 50000; 66702 bytes encoded, over the limit of 65536`},
		{"stdin past its bound", "", []string{"--stdin", "@big.in", "--code", "1"}, "request: stdin is 70000 bytes, over the limit of 65536"},
		{"stdin pipe past its bound", strings.Repeat("z", 70000), []string{"--stdin", "-", "--code", "1"}, "request: stdin is more than 65536 bytes, over the limit of 65536"},
		{"file past its bound", "", []string{"--from-file", "data=@big.in", "--code", "1"}, `request: file "data" is 70000 bytes, over the limit of 65536`},
		{"stdin and source past the request bound", "", []string{"--stdin", "@60k.in", "--file", "@long.py"},
			"request: the program is 6010 bytes, stdin 60000; 66036 bytes encoded, over the limit of 65536"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append(append([]string{}, base...), tc.args...), "--", "python3", "-")
			r, j := judgeRun(t, dir, tc.stdin, args...)
			assert.Check(t, is.Equal(r.code, 2), "%s\n%s", r.stdout, r.stderr)
			assert.Check(t, is.Equal(j.Verdict, "rejected"))
			assert.Check(t, is.Equal(j.Container, ""), "no container planned")
			assert.Check(t, !j.Sandboxed)
			assert.Check(t, is.Contains(r.stderr, tc.want))
		})
	}
}

// TestJudgeBatchRefusals: in batch each refusal is a rejected line of its
// own, the other lines run.
func TestJudgeBatchRefusals(t *testing.T) {
	needEngine(t)
	t.Parallel()
	lines := []string{
		`{"id":"bad-name","source":"print(1)","files":{"a/b":"x"}}`,
		`{"id":"dots","source":"print(1)","files":{"..":"x"}}`,
		`{"id":"twice","source":"print(1)","files":{"a.py":"x","a.py":"y"}}`,
		`{"id":"big","source":"print(1)","stdin":"` + strings.Repeat("x", 66000) + `"}`,
		`{"id":"past-the-line","source":"print(1)","stdin":"` + strings.Repeat("x", 70000) + `"}`,
		`{"id":"big-file","source":"print(1)","files":{"in.txt":"` + strings.Repeat("x", 70000) + `"}}`,
		`{"id":"not-text","source":"print(1)","stdin":"ok` + "\xff" + `"}`,
		`{"id":"stdin-type","source":"print(1)","stdin":3}`,
		`{"id":"fine","source":"import sys\nprint(sys.stdin.read())","stdin":"hello"}`,
	}
	r := tool(t, nil, strings.Join(lines, "\n")+"\n", "batch", "--image", pythonImage, "--ordered", "--", "python3", "-")
	assert.Check(t, is.Equal(r.code, 2), r.stderr)
	rs := parseBatch(t, r.stdout)
	assert.Assert(t, is.Len(rs, len(lines)), r.stdout)
	// By line: a line refused as a whole (a key twice, not UTF-8) has no
	// id to carry.
	want := []string{
		`line 1: file name "a/b": must be a plain name, without /`, `line 2: file name "..": must be a plain name, without ..`,
		`line 3: duplicate field "a.py" in "files"`,
		"request: the program is 8 bytes, stdin 66000; 66032 bytes encoded, over the limit of 65536",
		`line 5: request: the line is more than 69632 bytes (cut in stdin), over the limit of 65536`,
		`line 6: request: the line is more than 69632 bytes (cut in file "in.txt"), over the limit of 65536`,
		"line 7: invalid UTF-8 at offset 48", `line 8: "stdin" must be a string`,
	}
	for i, res := range rs {
		assert.Check(t, is.Equal(res.Line, i+1))
		if i == len(rs)-1 {
			assert.Check(t, is.Equal(res.Verdict, "ok"))
			assert.Check(t, is.Equal(res.Output, "hello\n"))
			assertGone(t, res.Container)
			continue
		}
		assert.Check(t, is.Equal(res.Verdict, "rejected"), res.Line)
		assert.Check(t, is.Equal(res.Container, ""), res.Line)
		assert.Assert(t, res.Error != nil, res.Line)
		assert.Check(t, is.Contains(res.Error.Message, want[i]), res.Line)
	}
	// A line past the line bound, cut by the reader, keeps its id.
	assert.Check(t, is.Equal(rs[4].ID, "past-the-line"))
	assert.Check(t, is.Equal(rs[5].ID, "big-file"))
}
