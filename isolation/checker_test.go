package isolation

import (
	"context"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/spool"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/supervisor"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// checkerStep is a checker's run on a test as the check's result gives
// it: exited code (-1: a signal), or stopped by a limit (errType).
func checkerStep(code int, errType, stdout, stderr string) TestResult {
	t := TestResult{Verdict: protocol.OK, Step: Step{Exit: &protocol.Exit{Code: code}, WallMS: 5}}
	t.Output, t.Stderr = stdout, stderr
	switch {
	case errType != "":
		t.Verdict, t.Error = protocol.Timeout, &protocol.Error{Type: errType, Message: "stopped at its wall-clock limit of 10s"}
	case code != 0:
		t.Verdict, t.Error = protocol.ProgramError, &protocol.Error{Type: protocol.ErrExec, Message: "exit status 1"}
	}
	return t
}

// TestGradeOf: testlib's exits are the grades; every other end of the
// checker is the judge's failure, and says so.
func TestGradeOf(t *testing.T) {
	for _, c := range []struct {
		name    string
		run     TestResult
		verdict Verdict
		points  float64
		err     string
	}{
		{"accepted", checkerStep(0, "", "", "ok 3 numbers\n"), protocol.OK, 0, ""},
		{"wrong answer", checkerStep(1, "", "", "expected 3, found 4\n"), protocol.WrongAnswer, 0, ""},
		{"presentation", checkerStep(2, "", "", ""), protocol.PresentationError, 0, ""},
		{"points on stdout", checkerStep(7, "", "0.25\n", ""), protocol.Points, 0.25, ""},
		{"points as testlib writes them", checkerStep(7, "", "", "points 40 partially\n"), protocol.Points, 40, ""},
		{"points without a score", checkerStep(7, "", "", "partially\n"), protocol.JudgeFailure, 0, "the checker exited 7 (points) with no score"},
		{"points not finite", checkerStep(7, "", "NaN", ""), protocol.JudgeFailure, 0, "the checker exited 7 (points) with no score"},
		{"failed", checkerStep(3, "", "", "FAIL answer file is empty\n"), protocol.JudgeFailure, 0, "the checker failed (exit 3): FAIL answer file is empty\n"},
		{"another exit", checkerStep(4, "", "", ""), protocol.JudgeFailure, 0, "the checker exited 4, none of testlib's grades (0, 1, 2, 7)"},
		{"a signal", checkerStep(-1, "", "", ""), protocol.JudgeFailure, 0, "the checker did not grade the test: exit status 1"},
		{"a limit", checkerStep(0, protocol.ErrTimeout, "", ""), protocol.JudgeFailure, 0, "the checker did not grade the test: stopped at its wall-clock limit of 10s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, p, run := gradeOf(c.run, "the checker")
			assert.Check(t, is.Equal(v, c.verdict))
			assert.Check(t, is.Equal(p != nil, c.verdict == protocol.Points))
			if p != nil {
				assert.Check(t, is.Equal(*p, c.points))
			}
			assert.Check(t, is.Equal(run.Error != nil, c.err != ""))
			if run.Error != nil {
				assert.Check(t, is.Equal(run.Error.Message, c.err))
				assert.Check(t, is.Equal(run.Error.Type, string(protocol.JudgeFailure)))
			}
		})
	}
}

// TestGradeTakesTheWorst: graded tests take their grades, the others
// keep their own verdicts, and the request's verdict is the worst; a
// check that did not run to its end fails every test it was to grade,
// naming why.
func TestGradeTakesTheWorst(t *testing.T) {
	prog := func() Result {
		return Result{Verdict: protocol.Timeout, Tests: []TestResult{{Name: "a", Verdict: protocol.OK}, {Name: "b", Verdict: protocol.Timeout}, {Name: "c", Verdict: protocol.OK}}}
	}
	res := prog()
	grade(&res, []int{0, 2}, Result{Verdict: protocol.OK, Tests: []TestResult{checkerStep(2, "", "", ""), checkerStep(0, "", "", "")}})
	assert.Check(t, is.Equal(res.Tests[0].Verdict, protocol.PresentationError))
	assert.Check(t, is.Equal(res.Tests[1].Verdict, protocol.Timeout))
	assert.Check(t, is.Equal(res.Tests[2].Verdict, protocol.OK))
	assert.Check(t, is.Equal(res.Verdict, protocol.Timeout))

	res = prog()
	res.Tests[1].Verdict = protocol.OK
	grade(&res, []int{0, 1, 2}, Result{Verdict: protocol.OK, Tests: []TestResult{checkerStep(1, "", "", "no\n"), checkerStep(0, "", "", ""), checkerStep(7, "", "1", "")}})
	assert.Check(t, is.Equal(res.Verdict, protocol.WrongAnswer))
	assert.Check(t, is.Equal(res.Error.Message, `test "a": the checker: wrong answer: no`))

	res = prog()
	grade(&res, []int{0, 2}, Result{Verdict: protocol.CompileError, Error: &protocol.Error{Message: "compilation failed: exit status 1: check.cpp:1: error: x"}})
	assert.Check(t, is.Equal(res.Verdict, protocol.JudgeFailure))
	assert.Check(t, is.Equal(res.Tests[2].Verdict, protocol.JudgeFailure))
	assert.Check(t, is.Equal(res.Error.Message, `test "a": compilation failed: exit status 1: check.cpp:1: error: x`))
}

// TestCheckChecker: a checker without a source, tests or an ID for an
// image, or beside a compare mode, is refused.
func TestCheckChecker(t *testing.T) {
	good := Request{Tests: []Test{{Name: "a"}}, Grader: &protocol.Checker{Source: "import sys", Image: "sha256:" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}}
	assert.NilError(t, checkChecker(good, good.Grader.(*protocol.Checker)))
	image := good.Grader.(*protocol.Checker).Image
	for want, mutate := range map[string]func(*Request){
		"checker: a checker grades tests, and there are none":            func(r *Request) { r.Tests = nil },
		`checker: compare "exact": with a checker, the checker compares`: func(r *Request) { r.Compare = "exact" },
		"checker: no source":             func(r *Request) { r.Grader = &protocol.Checker{Source: " \n", Image: image} },
		"checker: image: ":               func(r *Request) { r.Grader = &protocol.Checker{Source: "x", Image: "python:3"} },
		"checker: source: invalid UTF-8": func(r *Request) { r.Grader = &protocol.Checker{Source: "\xff", Image: image} },
	} {
		r := good
		mutate(&r)
		err := checkChecker(r, r.Grader.(*protocol.Checker))
		assert.Check(t, is.ErrorContains(err, want))
		assert.Check(t, is.Equal(supervisor.VerdictOf(err), protocol.Rejected))
	}
}

// TestRunGradedRefusesANilGrader: a Grader that is a nil pointer grades
// nothing: the request is refused before anything runs.
func TestRunGradedRefusesANilGrader(t *testing.T) {
	for _, g := range []protocol.Grader{(*protocol.Checker)(nil), (*protocol.Interactor)(nil)} {
		p := checkedRun{start: time.Now(), program: func(*attempt, protocol.Frame) error { panic("the program ran") }}
		res, err := runGraded(context.Background(), Request{Source: "x", Tests: []Test{{Name: "a"}}, Grader: g}, p)
		assert.Check(t, is.Equal(supervisor.VerdictOf(err), protocol.Rejected), "%T", g)
		assert.Check(t, is.Equal(res.Verdict, protocol.Rejected))
		assert.Check(t, is.ErrorContains(err, "grader: a nil"))
	}
}

// TestOverBoundIsNeverShown: a test whose stdout was more than its
// checker would be given is a wrong answer before any checker runs, and
// is not graded; a whole one, and a test that failed on its own, are left
// as they were.
func TestOverBoundIsNeverShown(t *testing.T) {
	outputs, err := spool.New()
	assert.NilError(t, err)
	defer outputs.Remove()
	for i, n := range []int64{4, 8} {
		w, err := outputs.Open(i, n)
		assert.NilError(t, err)
		_, err = w.Write(make([]byte, n))
		assert.NilError(t, err)
		assert.NilError(t, w.Close())
	}
	n := int64(4)
	tests := []TestResult{{Name: "whole", Verdict: protocol.OK, CheckedBytes: &n}, {Name: "cut", Verdict: protocol.OK}, {Name: "crash", Verdict: protocol.ProgramError}}
	tests[0].OutputBytes, tests[1].OutputBytes, tests[2].OutputBytes = 4, 20, 99
	overBound(tests, outputs)
	assert.Check(t, is.Equal(tests[0].Verdict, protocol.OK))
	assert.Check(t, is.Equal(tests[1].Verdict, protocol.WrongAnswer))
	assert.Check(t, tests[1].CheckedBytes == nil && tests[1].Error != nil)
	assert.Check(t, is.Contains(tests[1].Error.Message, "its stdout, 20 bytes, is over what a checker is given"))
	assert.Check(t, is.Equal(tests[2].Verdict, protocol.ProgramError))
	check, graded := checkRequest(&protocol.Checker{Source: "x"}, []Test{{Name: "whole"}, {Name: "cut"}, {Name: "crash"}}, tests, outputs)
	assert.Check(t, is.DeepEqual(graded, []int{0}))
	assert.Check(t, check.Role() == protocol.RoleCheck && len(check.Tests) == 1 && *check.Tests[0].OutputBytes == 4)
}

// TestPassVerdict: the checker's pass is ok when it answered for every
// test, whatever its grades; else its own verdict.
func TestPassVerdict(t *testing.T) {
	two := []TestResult{{Verdict: protocol.OK}, {Verdict: protocol.ProgramError}}
	assert.Check(t, is.Equal(passVerdict(Result{Verdict: protocol.ProgramError, Tests: two}, 2), protocol.OK))
	assert.Check(t, is.Equal(passVerdict(Result{Verdict: protocol.CompileError}, 2), protocol.CompileError))
	assert.Check(t, is.Equal(passVerdict(Result{Verdict: protocol.SandboxFailure}, 2), protocol.SandboxFailure))
	assert.Check(t, is.Equal(passVerdict(Result{Verdict: protocol.Timeout, Tests: two[:1]}, 2), protocol.Timeout))
}
