package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// A judge's interactor, live: the program in its container, the
// interactor in its own, each one's stdout the other's stdin. The game
// of testdata/interact: the interactor reads N from the test's input and
// the secret from its answer, writes N, and answers each guess line with
// higher, lower or correct, within ceil(log2 N) + 1 guesses (its header
// says the rest).

// TestInteractorBinarySearch: a binary search in C, Python, C++ and Java
// (each flushing its guesses) wins the game on every test against the
// Python interactor and the C++ one, compiled once in its own container;
// the program's output is its guesses and the interactor's the transcript
// of its replies, N first. A linear search, right but slow, is a wrong
// answer past the budget, the interactor's message naming it; guesses in
// another judge's layout are a presentation error.
func TestInteractorBinarySearch(t *testing.T) {
	t.Parallel()
	dir := testDir(t, [3]string{"1", "1\n", "1\n"}, [3]string{"2", "100\n", "37\n"},
		[3]string{"3", "1000000\n", "999999\n"}, [3]string{"4", "1000000\n", "1\n"})
	for _, c := range []struct{ kind, file, interactorKind, interactorFile string }{
		{"c", "search.c", "python", "interactor.py"},
		{"python", "search.py", "python", "interactor.py"},
		{"cpp", "search.cpp", "cpp", "interactor.cpp"},
		{"java", "Main.java", "cpp", "interactor.cpp"},
	} {
		t.Run(c.kind, func(t *testing.T) {
			needKind(t, c.kind)
			needKind(t, c.interactorKind)
			t.Parallel()
			r, res := interacted(t, images[c.kind], c.file, interactSrc(t, c.file), dir,
				images[c.interactorKind], c.interactorFile, interactSrc(t, c.interactorFile), "--timeout", "120s")
			assert.Check(t, is.DeepEqual(verdictsOfInteracted(res), map[string]string{"1": "ok", "2": "ok", "3": "ok", "4": "ok"}), r.stdout)
			assert.Check(t, is.Equal(res.Verdict, "ok"))
			assert.Check(t, is.Equal(r.code, 0), r.stderr)
			if res.Interactor.Compile != nil {
				assert.Check(t, res.Interactor.Compile.Error == nil, r.stdout)
			}
			two := testNamed(t, r, res, "2")
			assert.Check(t, is.Equal(two.Output, "50\n25\n37\n"))
			assert.Check(t, is.Equal(two.OutputBytes, int64(9)))
			assert.Check(t, is.Equal(two.Interactor.Output, "100\nlower\nhigher\ncorrect\n"))
			assert.Check(t, is.Equal(two.Interactor.Message, "found 37 in 3 guesses\n"))
			if assert.Check(t, two.Interactor.ExitCode != nil) {
				assert.Check(t, is.Equal(*two.Interactor.ExitCode, 0))
			}
			three := testNamed(t, r, res, "3")
			assert.Check(t, strings.HasPrefix(three.Output, "500000\n750000\n"), three.Output)
			assert.Check(t, strings.HasPrefix(three.Interactor.Output, "1000000\nhigher\n"), three.Interactor.Output)
			assert.Check(t, is.Equal(three.Interactor.Message, "found 999999 in 19 guesses\n"))
		})
	}

	t.Run("linear", func(t *testing.T) {
		needEngine(t)
		t.Parallel()
		dir := testDir(t, [3]string{"small", "3\n", "2\n"}, [3]string{"large", "1000000\n", "999999\n"})
		r, res := played(t, cImage, "linear.c", dir, "--timeout", "60s")
		assert.Check(t, is.DeepEqual(verdictsOfInteracted(res), map[string]string{"small": "ok", "large": "wrong_answer"}), r.stdout)
		assert.Check(t, is.Equal(res.Verdict, "wrong_answer"))
		assert.Check(t, is.Equal(r.code, 4), r.stderr)
		large := testNamed(t, r, res, "large")
		if assert.Check(t, large.Interactor.ExitCode != nil) {
			assert.Check(t, is.Equal(*large.Interactor.ExitCode, 1))
		}
		assert.Check(t, is.Equal(large.Interactor.Message, "over the budget of 21 guesses for N=1000000\n"))
		assert.Check(t, strings.HasPrefix(large.Output, "1\n2\n3\n"), large.Output)
		assert.Check(t, is.Equal(large.OutputBytes, int64(len("1\n2\n3\n4\n5\n6\n7\n8\n9\n")+13*3)), "22 guesses, then the end of its input")
		if assert.Check(t, res.Error != nil, r.stdout) {
			assert.Check(t, is.Contains(res.Error.Message, "over the budget of 21 guesses"))
		}
	})

	t.Run("layout", func(t *testing.T) {
		needEngine(t)
		t.Parallel()
		dir := testDir(t, [3]string{"1", "100\n", "37\n"})
		r, res := played(t, pythonImage, "question.py", dir, "--timeout", "60s")
		assert.Check(t, is.DeepEqual(verdictsOfInteracted(res), map[string]string{"1": "presentation_error"}), r.stdout)
		assert.Check(t, is.Equal(r.code, 4), r.stderr)
		tc := testNamed(t, r, res, "1")
		assert.Check(t, is.Equal(tc.Interactor.Message, "not a guess line: b'? 50\\n'\n"))
		assert.Check(t, is.Equal(tc.Output, "? 50\n"))
	})
}

// TestInteractorNeverAnswers: a program that reads N and writes nothing,
// whether it waits on a reply the interactor waits on it for or sleeps,
// is stopped by its own test limit: a timeout, not the interactor's wrong
// answer at the end of its input that follows, and the run ends well
// within its bounds.
func TestInteractorNeverAnswers(t *testing.T) {
	needEngine(t)
	t.Parallel()
	dir := testDir(t, [3]string{"deadlock", "1000\n", "500\n"}, [3]string{"sleep", "2000\n", "500\n"})
	start := time.Now()
	r, res := played(t, cImage, "silent.c", dir, "--test-timeout", "2s", "--timeout", "120s")
	assert.Check(t, time.Since(start) < 60*time.Second, "took %s", time.Since(start))
	assert.Check(t, is.DeepEqual(verdictsOfInteracted(res), map[string]string{"deadlock": "timeout", "sleep": "timeout"}), r.stdout)
	assert.Check(t, is.Equal(res.Verdict, "timeout"))
	for name, tc := range testsByName(t, r, res) {
		assert.Check(t, is.Equal(tc.Output, ""), name)
		assert.Check(t, is.Equal(tc.Interactor.Output, map[string]string{"deadlock": "1000\n", "sleep": "2000\n"}[name]), name)
		assert.Check(t, is.Equal(tc.TimeLimitMS, int64(2000)), name)
	}
}

// TestInteractorAnswersForever: a program that floods its guesses
// without reading a reply ends when the interactor does, over its budget
// (a wrong answer); one endless line, no newline, is no guess line (a
// presentation error): the interactor reads a line only so far. The run
// ends, and what each side wrote is kept head and tail.
func TestInteractorAnswersForever(t *testing.T) {
	needEngine(t)
	t.Parallel()
	dir := testDir(t, [3]string{"lines", "1000\n", "500\n"}, [3]string{"line", "2000\n", "500\n"})
	start := time.Now()
	r, res := played(t, cImage, "flood.c", dir, "--test-timeout", "2s", "--timeout", "120s")
	assert.Check(t, time.Since(start) < 60*time.Second, "took %s", time.Since(start))
	assert.Check(t, is.DeepEqual(verdictsOfInteracted(res), map[string]string{"lines": "wrong_answer", "line": "presentation_error"}), r.stdout)
	assert.Check(t, is.Equal(r.code, 4), r.stderr)
	for name, tc := range testsByName(t, r, res) {
		assert.Check(t, len(tc.Output) < 200000, "%s: %d bytes of output kept", name, len(tc.Output))
		assert.Check(t, tc.OutputBytes >= int64(len(tc.Output)), name)
		assert.Check(t, len(tc.Interactor.Output) < 200000, name)
	}
	lines, line := testNamed(t, r, res, "lines"), testNamed(t, r, res, "line")
	assert.Check(t, is.Equal(lines.Interactor.Message, "over the budget of 11 guesses for N=1000\n"))
	assert.Check(t, strings.HasPrefix(lines.Output, "1\n1\n1\n"), lines.Output)
	assert.Check(t, strings.HasPrefix(lines.Interactor.Output, "1000\nhigher\nhigher\n"), lines.Interactor.Output)
	assert.Check(t, is.Contains(line.Interactor.Message, "not a guess line: b'1111"))
	assert.Check(t, is.Equal(line.Interactor.Output, "2000\n"))
}

// TestInteractorProgramClosesStdin: a program that closes its stdin at
// once and waits is stopped by its test limit (a timeout); one that
// closes it and exits 0 has guessed nothing: the interactor reads the end
// of its output, a wrong answer. Neither is the judge's failure.
func TestInteractorProgramClosesStdin(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ file, verdict string }{{"closewait.c", "timeout"}, {"closeexit.c", "wrong_answer"}} {
		t.Run(c.file, func(t *testing.T) {
			needEngine(t)
			t.Parallel()
			dir := testDir(t, [3]string{"1", "100\n", "37\n"})
			r, res := played(t, cImage, c.file, dir, "--test-timeout", "2s", "--timeout", "120s")
			assert.Check(t, is.DeepEqual(verdictsOfInteracted(res), map[string]string{"1": c.verdict}), r.stdout)
			assert.Check(t, is.Equal(res.Verdict, c.verdict))
			tc := testNamed(t, r, res, "1")
			assert.Check(t, is.Equal(tc.Output, ""))
			if c.verdict == "wrong_answer" {
				assert.Check(t, is.Equal(r.code, 4), r.stderr)
				assert.Check(t, is.Equal(tc.Interactor.Message, "the program's output ended after 0 guesses, none correct\n"))
			}
		})
	}
}

// TestInteractorFails: an interactor that exits 3 (testlib's own
// failure), one that exits 4 (none of testlib's codes) and one that dies
// of a signal each fail their test as the judge's (exit 5), never ok and
// never the program's, the interactor's part naming why. (A Python
// exception would not do: it exits 1, a wrong answer.)
func TestInteractorFails(t *testing.T) {
	needEngine(t)
	t.Parallel()
	dir := testDir(t, [3]string{"fail", "3\n", "1\n"}, [3]string{"other", "4\n", "1\n"}, [3]string{"crash", "11\n", "1\n"})
	r, res := interacted(t, cImage, "search.c", interactSrc(t, "search.c"), dir, pythonImage, "failing.py", interactSrc(t, "failing.py"), "--timeout", "60s")
	assert.Check(t, is.DeepEqual(verdictsOfInteracted(res), map[string]string{"fail": "judge_failure", "other": "judge_failure", "crash": "judge_failure"}), r.stdout)
	assert.Check(t, is.Equal(res.Verdict, "judge_failure"))
	assert.Check(t, is.Equal(r.code, 5), r.stderr)
	assert.Check(t, res.Error != nil, r.stdout)
	for name, tc := range testsByName(t, r, res) {
		if assert.Check(t, tc.Interactor.Error != nil, "%s: %s", name, r.stdout) {
			assert.Check(t, is.Contains(tc.Interactor.Error.Message, "interactor"), name)
		}
		switch name {
		case "fail", "other":
			want := map[string]int{"fail": 3, "other": 4}[name]
			if assert.Check(t, tc.Interactor.ExitCode != nil, name) {
				assert.Check(t, is.Equal(*tc.Interactor.ExitCode, want), name)
			}
			assert.Check(t, is.Equal(tc.Interactor.Message, map[string]string{"fail": "failing with 3\n", "other": "failing with 4\n"}[name]))
		case "crash":
			assert.Check(t, tc.Interactor.ExitCode == nil, "killed by a signal, it exited with no code")
			if tc.Interactor.Error != nil {
				assert.Check(t, is.Contains(tc.Interactor.Error.Message, "segmentation fault"))
			}
		}
	}
}

// TestInteractorSeesFilesProgramDoesNot: the test's input and answer are
// the interactor's alone: a program that reads every file it can (a walk
// of /, /tmp, a checker's and an interactor's likely places, the other
// processes' cmdline and environ), writing what it finds to stderr and a
// find to stdout, finds neither file's marker, then wins fairly. The
// interactor read both (N from the input, the secret from the answer).
func TestInteractorSeesFilesProgramDoesNot(t *testing.T) {
	needEngine(t)
	t.Parallel()
	dir := testDir(t, [3]string{"1", "100 INPUT-MARKER-3Z\n", "37 SECRET-MARKER-7Q\n"})
	r, res := played(t, pythonImage, "snoop.py", dir, "--test-timeout", "10s", "--timeout", "60s")
	assert.Check(t, is.DeepEqual(verdictsOfInteracted(res), map[string]string{"1": "ok"}), r.stdout)
	assert.Check(t, is.Equal(r.code, 0), r.stderr)
	tc := testNamed(t, r, res, "1")
	assert.Check(t, is.Equal(tc.Output, "50\n25\n37\n"), "a find would be a line of its own")
	assert.Check(t, is.Equal(tc.Interactor.Message, "found 37 in 3 guesses\n"))
	// The whole result: the program's output and stderr among the rest.
	for _, marker := range []string{"SECRET-MARKER-7Q", "INPUT-MARKER-3Z"} {
		assert.Check(t, !strings.Contains(r.stdout, marker), "%s reached the program: %s", marker, r.stdout)
		assert.Check(t, !strings.Contains(r.stderr, marker), marker)
	}
}

// TestInteractorInBatch: a batch line's "interactor" talks with the
// line's program in its warm container: the binary search is ok, the
// linear search over budget is wrong_answer, and a line without one is
// compared; no container of any of them is left.
func TestInteractorInBatch(t *testing.T) {
	needEngine(t)
	t.Parallel()
	interactor := map[string]string{"source": interactSrc(t, "interactor.py"), "image": pythonImage}
	game := []map[string]string{{"name": "1", "stdin": "100\n", "expect": "37\n"}, {"name": "2", "stdin": "1000\n", "expect": "1\n"}}
	line := func(id string, m map[string]any) string {
		m["id"] = id
		b, err := json.Marshal(m)
		assert.NilError(t, err)
		return string(b) + "\n"
	}
	in := line("search", map[string]any{"source": interactSrc(t, "search.c"), "tests": game, "interactor": interactor}) +
		line("linear", map[string]any{"source": interactSrc(t, "linear.c"), "tests": game, "interactor": interactor}) +
		line("compared", map[string]any{"source": "int main(void) { return 0; }\n", "tests": []map[string]string{{"name": "1", "stdin": "", "expect": ""}}})
	r := tool(t, nil, in, "batch", "--image", cImage, "--ordered", "--parallel", "2")
	var got []interactedResult
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var res interactedResult
		assert.NilError(t, json.Unmarshal([]byte(l), &res), l)
		got = append(got, res)
		assertRunGone(t, res.RunID)
		if res.Interactor != nil {
			assertRunGone(t, res.Interactor.RunID)
		}
	}
	assert.Assert(t, is.Len(got, 3), r.stdout+r.stderr)
	assert.Check(t, is.DeepEqual(verdictsOfInteracted(got[0]), map[string]string{"1": "ok", "2": "ok"}), r.stdout)
	assert.Check(t, got[0].Interactor != nil && got[0].Interactor.Verdict == "ok", r.stdout)
	assert.Check(t, is.DeepEqual(verdictsOfInteracted(got[1]), map[string]string{"1": "wrong_answer", "2": "ok"}), r.stdout)
	assert.Check(t, is.Equal(got[2].Verdict, "ok"))
	assert.Check(t, got[2].Interactor == nil, "a line without an interactor is compared")
	assert.Check(t, is.Equal(r.code, 4), r.stderr)
}

// TestRunscInteractor: under gVisor, on the second engine, the program's
// container and the interactor's talk through the host as under runc: the
// binary search is ok, a program that never answers meets its time limit,
// and neither run leaves a container on either engine.
func TestRunscInteractor(t *testing.T) {
	needEngine(t)
	e := needSecondEngine(t)
	t.Parallel()
	imageOnSecond(t, e, cImage)
	imageOnSecond(t, e, pythonImage)
	work := t.TempDir()
	inter := filepath.Join(work, "interactor.py")
	assert.NilError(t, os.WriteFile(inter, []byte(interactSrc(t, "interactor.py")), 0o644))
	dir := testDir(t, [3]string{"1", "100\n", "37\n"}, [3]string{"2", "1000000\n", "999999\n"})
	for prog, want := range map[string][]string{"search.c": {"ok", "ok"}, "silent.c": {"timeout", "timeout"}} {
		file := filepath.Join(work, prog)
		assert.NilError(t, os.WriteFile(file, []byte(interactSrc(t, prog)), 0o644))
		r := underRunsc(t, e, nil, "", "run", "--image", cImage, "--file", file, "--tests", dir, "--timeout", "60s", "--test-timeout", "2s",
			"--interactor", inter, "--interactor-image", pythonImage)
		var res interactedResult
		assert.NilError(t, json.Unmarshal([]byte(r.stdout), &res), "%s\n%s", r.stdout, r.stderr)
		assert.Assert(t, res.Interactor != nil, r.stdout)
		for _, id := range []string{res.RunID, res.Interactor.RunID} {
			assert.Check(t, is.Len(labelled(t, e, "="+id), 0), "run %s left a container on the second engine", id)
			assert.Check(t, is.Len(labelled(t, nil, "="+id), 0), "run %s reached the machine's engine", id)
		}
		var got []string
		for _, tc := range res.Tests {
			got = append(got, tc.Verdict)
		}
		assert.Check(t, is.DeepEqual(got, want), "%s: %s", prog, r.stdout)
	}
}
