package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// language is a judge's language as the suite tries it: its image, the
// source file a user gives, and programs that read two numbers and print
// their sum, except on a first number of -1 (a runtime error), -2 (an
// endless loop) or -3 (allocating without end); and one that does not
// compile.
type language struct {
	name, file, src, broken string // name: its image's kind
	// hog is the verdict of the allocating test: the cgroup's OOM kill,
	// or for Java its own heap limit's OutOfMemoryError (program_error).
	hog string
	// compiled: the image has a compile step; the broken source fails it.
	compiled bool
	// compileError is how the compile error's message goes on after
	// "compilation failed: ": the compiler's exit status, then its first
	// error line; "" is gcc's and javac's exit status alone.
	compileError string
}

// need skips a (sub)test of l that is not this part of the suite's: its
// kind's tier says which.
func (l language) need(t *testing.T) {
	t.Helper()
	needKind(t, l.name)
}

// kindRun runs src on the image of kind, by the command its labels
// declare (no command after --), and checks that the run left nothing
// behind.
func kindRun(t *testing.T, kind, src string, flags ...string) toolResult {
	t.Helper()
	r := tool(t, nil, "", append([]string{"run", "--image", images[kind], "--code", src}, flags...)...)
	if r.res.Container != "" {
		assertGone(t, r.res.Container)
		assertRunGone(t, r.res.RunID)
	}
	return r
}

// compiledRun is kindRun for a kind that compiles first, under a 30 s
// timeout: its compiler's start, not the program, takes seconds.
func compiledRun(t *testing.T, kind, src string, flags ...string) toolResult {
	t.Helper()
	return kindRun(t, kind, src, append([]string{"--timeout", "30s"}, flags...)...)
}

// image is the image of l's kind.
func (l language) image() string { return images[l.name] }

var languages = []language{
	{name: "c", file: "sum.c", hog: "oom", compiled: true, src: `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void) {
	long a, b;
	if (scanf("%ld %ld", &a, &b) != 2) return 2;
	if (a == -1) { fprintf(stderr, "bad input %ld\n", a); return 3; }
	if (a == -2) for (;;) {}
	if (a == -3) for (;;) { char *p = malloc(1 << 20); if (!p) return 4; memset(p, 1, 1 << 20); }
	printf("%ld\n", a + b);
	return 0;
}
`, broken: "int main(void) { return x; }\n"},
	{name: "cpp", file: "sum.cpp", hog: "oom", compiled: true, src: `#include <iostream>
#include <vector>
#include <stdexcept>
int main() {
	long a, b;
	std::cin >> a >> b;
	if (a == -1) throw std::runtime_error("bad input");
	if (a == -2) for (volatile int i = 0;; i++) {}
	std::vector<std::vector<char>> hog;
	if (a == -3) for (;;) hog.emplace_back(1 << 20, 1);
	std::cout << a + b << "\n";
}
`, broken: "int main() { return std::x; }\n"},
	{name: "java", file: "Main.java", hog: "program_error", compiled: true, src: `import java.util.*;
public class Main {
	public static void main(String[] args) {
		Scanner in = new Scanner(System.in);
		long a = in.nextLong(), b = in.nextLong();
		if (a == -1) throw new IllegalStateException("bad input");
		if (a == -2) while (true) {}
		List<long[]> hog = new ArrayList<>();
		if (a == -3) while (true) hog.add(new long[1 << 17]);
		System.out.println(a + b);
	}
}
`, broken: "public class Main { int x = ; }\n"},
	{name: "python", file: "sum.py", hog: "oom", src: `a, b = map(int, input().split())
if a == -1:
    raise ValueError("bad input")
while a == -2:
    pass
hog = []
while a == -3:
    hog.append(bytearray(1 << 20))
print(a + b)
`},
	{name: "node", file: "sum.js", hog: "oom", src: `const [a, b] = require("fs").readFileSync(0, "utf8").trim().split(/\s+/).map(Number);
if (a === -1) throw new Error("bad input");
while (a === -2) {}
const hog = [];
while (a === -3) hog.push(Buffer.alloc(1 << 20, 1));
console.log(a + b);
`},
	{name: "ruby", file: "sum.rb", hog: "oom", src: `a, b = $stdin.read.split.map(&:to_i)
raise "bad input" if a == -1
loop {} if a == -2
hog = []
hog << "x" * (1 << 20) while a == -3
puts a + b
`},
	{name: "php", file: "sum.php", hog: "oom", src: `<?php
[$a, $b] = array_map("intval", preg_split('/\s+/', trim(stream_get_contents(STDIN))));
if ($a == -1) throw new Exception("bad input");
while ($a == -2) {}
$hog = [];
while ($a == -3) $hog[] = str_repeat("x", 1 << 20);
echo $a + $b, "\n";
`},
	{name: "go", file: "sum.go", hog: "oom", compiled: true, src: `package main

import "fmt"

func main() {
	var a, b int64
	fmt.Scan(&a, &b)
	if a == -1 {
		panic("bad input")
	}
	for a == -2 {
	}
	var hog [][]byte
	for a == -3 {
		p := make([]byte, 1<<20)
		for i := range p {
			p[i] = 1
		}
		hog = append(hog, p)
	}
	fmt.Println(a + b)
}
`, broken: "package main\n\nfunc main() { println(x) }\n", compileError: "exit status 2: ./main.go:3:23: undefined: x"},
	{name: "typescript", file: "sum.ts", hog: "oom", compiled: true, src: `import { readFileSync } from "fs";
const [a, b]: number[] = readFileSync(0, "utf8").trim().split(/\s+/).map(Number);
if (a === -1) throw new Error("bad input");
while (a === -2) {}
const hog: Buffer[] = [];
while (a === -3) hog.push(Buffer.alloc(1 << 20, 1));
console.log(a + b);
`, broken: "const n: number = \"three\";\n",
		compileError: "exit status 2: main.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'."},
	{name: "rust", file: "sum.rs", hog: "oom", compiled: true, src: `use std::io::Read;

fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();
    let (a, b) = (v[0], v[1]);
    if a == -1 {
        panic!("bad input");
    }
    while a == -2 {}
    let mut hog: Vec<Vec<u8>> = Vec::new();
    while a == -3 {
        hog.push(vec![1u8; 1 << 20]);
    }
    println!("{}", a + b);
}
`, broken: "fn main() {\n    println!(\"{}\", x);\n}\n", compileError: "exit status 1: error[E0425]: cannot find value `x` in this scope"},
}

// judgeResult is a judged run's result.
type judgeResult struct {
	Verdict  string `json:"verdict"`
	ExitCode int    `json:"exit_code"`
	Error    *struct {
		Type, Message string
	} `json:"error"`
	Container string `json:"container"`
	RunID     string `json:"run_id"`
	Compile   *struct {
		Output string `json:"output"`
		Stderr string `json:"stderr"`
		Error  *struct{ Type, Message string }
	} `json:"compile"`
	Tests []struct {
		Name    string `json:"name"`
		Verdict string `json:"verdict"`
		Match   *bool  `json:"match"`
		Output  string `json:"output"`
		Stderr  string `json:"stderr"`
		WallMS  int64  `json:"wall_ms"`
		// The limits the test ran under: the time factor's part.
		TimeLimitMS    int64 `json:"time_limit_ms"`
		CPUTimeLimitMS int64 `json:"cpu_time_limit_ms"`
		Usage          struct {
			CPUMS           *int64 `json:"cpu_ms"`
			MemoryPeakBytes *int64 `json:"memory_peak_bytes"`
		} `json:"usage"`
		Error *struct{ Type, Message string } `json:"error"`
	} `json:"tests"`
}

// judge runs src with the tests in dir on l's image, and checks that the
// run left nothing behind.
func judge(t *testing.T, l language, src, dir string, flags ...string) judgeResult {
	t.Helper()
	file := filepath.Join(t.TempDir(), l.file)
	assert.NilError(t, os.WriteFile(file, []byte(src), 0o644))
	args := append([]string{"run", "--image", l.image(), "--file", file, "--tests", dir}, flags...)
	r := tool(t, nil, "", args...)
	var res judgeResult
	assert.NilError(t, json.Unmarshal([]byte(r.stdout), &res), "%s\n%s", r.stdout, r.stderr)
	assert.Equal(t, r.code, res.ExitCode)
	assertGone(t, res.Container)
	assertRunGone(t, res.RunID)
	return res
}

// testDir writes tests: name, then stdin, then expected output.
func testDir(t *testing.T, tests ...[3]string) string {
	dir := t.TempDir()
	for _, tc := range tests {
		assert.NilError(t, os.WriteFile(filepath.Join(dir, tc[0]+".in"), []byte(tc[1]), 0o644))
		assert.NilError(t, os.WriteFile(filepath.Join(dir, tc[0]+".out"), []byte(tc[2]), 0o644))
	}
	return dir
}

func verdictsOf(r judgeResult) []string {
	var v []string
	for _, tc := range r.Tests {
		v = append(v, tc.Verdict)
	}
	return v
}

// TestJudgeEachLanguage: per language, the program compiled once (C, C++,
// Java, Go, TypeScript, Rust) runs once per test in one container: a correct solution, a wrong
// expected output, a runtime error, an endless loop on one test while
// the tests after it still run, a memory hog, and a source that does not
// compile, named by the compiler's own message.
func TestJudgeEachLanguage(t *testing.T) {
	t.Parallel()
	// The languages are judged side by side, four at a time, from this
	// test's own turn: as parallel subtests they would start only after
	// every test waiting for its turn, and end the suite alone.
	var wg sync.WaitGroup
	defer wg.Wait()
	turns := make(chan struct{}, 4)
	for _, l := range languages {
		wg.Go(func() {
			t.Run(l.name, func(t *testing.T) {
				l.need(t)
				turns <- struct{}{}
				defer func() { <-turns }()
				// Three tests, the third's expected output wrong.
				r := judge(t, l, l.src, testDir(t, [3]string{"1", "1 2\n", "3\n"}, [3]string{"2", "20 22\n", "42\n"}, [3]string{"10", "5 5\n", "11\n"}),
					"--timeout", "30s")
				assert.DeepEqual(t, verdictsOf(r), []string{"ok", "ok", "wrong_answer"})
				assert.Equal(t, r.Verdict, "wrong_answer")
				assert.Equal(t, r.ExitCode, 4)
				assert.Check(t, is.Contains(r.Error.Message, `test "10": its stdout differs from the expected output at line 1`))
				assert.Check(t, is.Equal(r.Tests[2].Output, "10\n"), "a test that failed keeps its output")
				for _, tc := range r.Tests {
					assert.Check(t, tc.Usage.CPUMS != nil && tc.Usage.MemoryPeakBytes != nil && *tc.Usage.MemoryPeakBytes > 0, "%s: usage %+v", tc.Name, tc.Usage)
				}
				assert.Equal(t, r.Compile != nil, l.compiled)

				// All right: ok, exit 0.
				r = judge(t, l, l.src, testDir(t, [3]string{"1", "1 2\n", "3\n"}, [3]string{"2", "-5 5", "0"}), "--timeout", "30s")
				assert.DeepEqual(t, verdictsOf(r), []string{"ok", "ok"})
				assert.Equal(t, r.ExitCode, 0)

				// An endless loop on test 2 of 3: timeout there, 1 and 3 judged.
				r = judge(t, l, l.src, testDir(t, [3]string{"1", "1 2\n", "3\n"}, [3]string{"2", "-2 0\n", "0\n"}, [3]string{"3", "3 4\n", "7\n"}),
					"--timeout", "30s", "--test-timeout", "3s")
				assert.DeepEqual(t, verdictsOf(r), []string{"ok", "timeout", "ok"})
				assert.Equal(t, r.Verdict, "timeout")
				assert.Equal(t, r.ExitCode, 124)
				// At least its own limit (by construction: stopped at it), and
				// short of the request's 30 s, which the test limit cut.
				assert.Check(t, r.Tests[1].WallMS >= 3000 && r.Tests[1].WallMS < 30000, "the test's own limit: %d ms", r.Tests[1].WallMS)

				// A runtime error and a memory hog, each judged on its own.
				r = judge(t, l, l.src, testDir(t, [3]string{"1", "-1 0\n", "0\n"}, [3]string{"2", "-3 0\n", "0\n"}, [3]string{"3", "2 2\n", "4\n"}),
					"--timeout", "60s", "--memory", "256m")
				assert.DeepEqual(t, verdictsOf(r), []string{"program_error", l.hog, "ok"})
				assert.Check(t, is.Contains(r.Tests[0].Stderr, "bad input"))
				if assert.Check(t, r.Tests[0].Error != nil) {
					// The exception's own words, not a stack frame or a trailer.
					assert.Check(t, is.Contains(r.Tests[0].Error.Message, "bad input"))
				}
				if l.name == "java" {
					assert.Check(t, is.Contains(r.Tests[1].Stderr, "java.lang.OutOfMemoryError"), "the JVM keeps its heap within --memory")
				}

				if !l.compiled {
					return
				}
				r = judge(t, l, l.broken, testDir(t, [3]string{"1", "1 2\n", "3\n"}), "--timeout", "30s")
				assert.Equal(t, r.Verdict, "compile_error")
				assert.Equal(t, r.ExitCode, 1)
				assert.Assert(t, r.Compile != nil && r.Compile.Error != nil)
				if l.compileError == "" {
					assert.Check(t, is.Contains(r.Compile.Stderr, "error"), r.Compile.Stderr)
					assert.Check(t, is.Contains(r.Error.Message, "compilation failed: exit status 1: "), r.Error.Message)
				} else {
					// The first error line, as the compiler wrote it (tsc on
					// its stdout; rustc's code in brackets).
					_, line, _ := strings.Cut(l.compileError, ": ")
					assert.Check(t, is.Contains(r.Compile.Stderr+r.Compile.Output, line+"\n"))
					assert.Check(t, is.Equal(r.Error.Message, "compilation failed: "+l.compileError))
				}
				assert.Check(t, r.Tests == nil, "nothing judged")
			})
		})
	}
}
