package isolation

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/relay"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// interactorStep is an interactor's run on a test: exited code, or
// stopped by a limit (errType), or not run.
func interactorStep(code int, errType string, notRun bool) TestResult {
	t := checkerStep(code, errType, "100\nlower\n", "found it\n")
	t.NotRun = notRun
	return t
}

// TestInteractiveDecides: each test's facts (the program's side, the
// interactor's run, the relay's account of who ended first) make its
// result: an interactor that ended first with anything but OK decides,
// whatever the program did after; the program's own failure stands when
// it came first, or after the interactor accepted; a program that
// exited 0, or that its runner stopped at the interactor's end, takes
// the interactor's grade (a score from its stderr alone); a program over
// the stream's bound is its own wrong answer; a test either side did not
// run, or the interactor did not grade, is the judge's failure.
func TestInteractiveDecides(t *testing.T) {
	stopped := &protocol.Error{Type: protocol.ErrTimeout, Message: "stopped at the interactor's end"}
	crashed := &protocol.Error{Type: protocol.ErrExec, Message: "exit status 1"}
	ownLimit := &protocol.Error{Type: protocol.ErrTimeout, Message: "stopped at its wall-clock limit of 2s"}
	points := checkerStep(7, "", "100\nlower\n", "points 0.5\n")
	const p, i, none = relay.Program, relay.Interactor, -1
	for _, c := range []struct {
		name    string
		program TestResult
		inter   TestResult
		end     relay.End
		verdict Verdict
		err     bool // the test keeps an error
		graded  bool
	}{
		{"both ok", TestResult{Verdict: protocol.OK}, interactorStep(0, "", false), relay.End{First: p}, protocol.OK, false, true},
		{"a wrong answer", TestResult{Verdict: protocol.OK}, interactorStep(1, "", false), relay.End{First: p}, protocol.WrongAnswer, false, true},
		{"points from stderr", TestResult{Verdict: protocol.OK}, points, relay.End{First: p}, protocol.Points, false, true},
		{"stopped at the interactor's end", TestResult{Verdict: protocol.Timeout, Stopped: true, Step: Step{Error: stopped}}, interactorStep(0, "", false), relay.End{First: i}, protocol.OK, false, true},
		{"stopped, the interactor gone", TestResult{Verdict: protocol.Timeout, Stopped: true, Step: Step{Error: stopped}}, interactorStep(0, protocol.ErrTimeout, false), relay.End{First: i}, protocol.JudgeFailure, false, true},
		{"the program crashed first", TestResult{Verdict: protocol.ProgramError, Step: Step{Error: crashed}}, interactorStep(1, "", false), relay.End{First: p}, protocol.ProgramError, true, false},
		{"the program's own limit first", TestResult{Verdict: protocol.Timeout, Step: Step{Error: ownLimit}}, interactorStep(1, "", false), relay.End{First: p}, protocol.Timeout, true, false},
		{"a crash at the interactor's end", TestResult{Verdict: protocol.ProgramError, Step: Step{Error: crashed}}, interactorStep(1, "", false), relay.End{First: i}, protocol.WrongAnswer, true, true},
		{"its own limit after the interactor's end", TestResult{Verdict: protocol.Timeout, Step: Step{Error: ownLimit}}, interactorStep(1, "", false), relay.End{First: i}, protocol.WrongAnswer, true, true},
		{"points, then a crash", TestResult{Verdict: protocol.ProgramError, Step: Step{Error: crashed}}, points, relay.End{First: i}, protocol.Points, true, true},
		{"a crash after the interactor accepted", TestResult{Verdict: protocol.ProgramError, Step: Step{Error: crashed}}, interactorStep(0, "", false), relay.End{First: i}, protocol.ProgramError, true, false},
		{"a crash after the interactor failed", TestResult{Verdict: protocol.ProgramError, Step: Step{Error: crashed}}, interactorStep(3, "", false), relay.End{First: i}, protocol.JudgeFailure, true, true},
		{"a crash after the interactor's run was gone", TestResult{Verdict: protocol.ProgramError, Step: Step{Error: crashed}}, interactorStep(0, "", true), relay.End{First: i}, protocol.JudgeFailure, true, false},
		{"a crash, no end seen", TestResult{Verdict: protocol.ProgramError, Step: Step{Error: crashed}}, interactorStep(1, "", false), relay.End{First: none}, protocol.ProgramError, true, false},
		{"over the bound, the cut stream accepted", TestResult{Verdict: protocol.Timeout, Stopped: true, Step: Step{Error: stopped}}, interactorStep(0, "", false), relay.End{First: p, Cut: true}, protocol.WrongAnswer, true, false},
		{"over the bound, the interactor failed", TestResult{Verdict: protocol.Timeout, Stopped: true, Step: Step{Error: stopped}}, interactorStep(0, protocol.ErrOOM, false), relay.End{First: p, Cut: true}, protocol.WrongAnswer, true, false},
		{"the interactor's verdict, then over the bound", TestResult{Verdict: protocol.Timeout, Stopped: true, Step: Step{Error: stopped}}, interactorStep(2, "", false), relay.End{First: i, Cut: true}, protocol.PresentationError, false, true},
		{"the interactor hung", TestResult{Verdict: protocol.OK}, interactorStep(0, protocol.ErrTimeout, false), relay.End{First: p}, protocol.JudgeFailure, false, true},
		{"the interactor failed", TestResult{Verdict: protocol.OK}, interactorStep(3, "", false), relay.End{First: p}, protocol.JudgeFailure, false, true},
		{"the interactor did not run it", TestResult{Verdict: protocol.OK}, interactorStep(0, "", true), relay.End{First: p}, protocol.JudgeFailure, false, false},
		{"the request's timeout came first", TestResult{Verdict: protocol.Timeout, NotRun: true, Step: Step{Error: &protocol.Error{Type: protocol.ErrTimeout, Message: "not run: the request's deadline of 10s came first"}}}, interactorStep(0, "", true), relay.End{First: none}, protocol.Timeout, true, false},
		{"the program's side did not run it", TestResult{Verdict: protocol.ProgramError, NotRun: true, Step: Step{Error: &protocol.Error{Type: protocol.ErrInternal, Message: "not run: the interactor ended before it"}}}, interactorStep(0, "", false), relay.End{First: none}, protocol.JudgeFailure, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.program.Name = "a"
			res := Result{Tests: []TestResult{c.program}}
			interactive(&res, Result{Verdict: protocol.OK, Tests: []TestResult{c.inter}}, []relay.End{c.end})
			got := res.Tests[0]
			assert.Check(t, is.Equal(got.Verdict, c.verdict))
			assert.Check(t, is.Equal(res.Verdict, c.verdict))
			assert.Check(t, is.Equal(got.Error != nil, c.err), "%+v", got.Error)
			assert.Assert(t, got.Interactor != nil)
			assert.Check(t, is.Equal(got.Interactor.Output, "100\nlower\n"))
			assert.Check(t, is.Equal(got.Interactor.Graded, c.graded))
			assert.Check(t, is.Equal(got.Interactor.EndedFirst, map[int]string{p: "program", i: "interactor", none: ""}[c.end.First]))
			if c.verdict == protocol.Points {
				assert.Assert(t, got.Points != nil)
				assert.Check(t, is.Equal(*got.Points, 0.5))
			}
			if c.verdict == protocol.JudgeFailure {
				assert.Check(t, got.Interactor.Error != nil && strings.Contains(res.Error.Message, "interactor") || strings.Contains(res.Error.Message, "side"), "%+v", res.Error)
			}
			if c.end.Cut && c.end.First == p { // the cut came first: its wrong answer
				assert.Check(t, !got.Stopped, "stopped at a bound of its own")
				if assert.Check(t, got.Error != nil && res.Error != nil) {
					assert.Check(t, is.Equal(got.Error.Type, string(protocol.WrongAnswer)))
				}
				assert.Check(t, res.Error != nil && res.Error.Message == `test "a": its output to the interactor passed 8388608 bytes, a test's bound: it was stopped there, and the interactor's grade of what it was given does not count`, "%+v", res.Error)
			}
		})
	}
}

// TestInteractiveWithoutTheInteractorsTests: an interactor's run that
// answered for no test (it failed to compile, say) makes every test the
// program did not fail itself a judge's failure, its cause named.
func TestInteractiveWithoutTheInteractorsTests(t *testing.T) {
	res := Result{Tests: []TestResult{{Name: "a", Verdict: protocol.OK}, {Name: "b", Verdict: protocol.OK}}}
	interactive(&res, Result{Verdict: protocol.CompileError, Error: &protocol.Error{Type: "compile_error", Message: "compilation failed: x"}}, []relay.End{{First: 1}, {First: 1}})
	for _, tc := range res.Tests {
		assert.Check(t, is.Equal(tc.Verdict, protocol.JudgeFailure))
		assert.Check(t, is.Equal(tc.Interactor.Error.Message, "the interactor's run: compilation failed: x"))
	}
	assert.Check(t, is.Equal(res.Verdict, protocol.JudgeFailure))
}

// TestDecideTest: the rules in their order, a case for each and for each
// conflict between two of them, on facts alone: an interactor's test's,
// then a checker's (which runs once the program's side has ended).
func TestDecideTest(t *testing.T) {
	const p, i = relay.Program, relay.Interactor
	for _, c := range []struct {
		name    string
		facts   testFacts
		rule    testRule
		verdict Verdict
	}{
		{"the request's timeout came first", testFacts{notRun: true, program: protocol.Timeout, grade: protocol.JudgeFailure, first: -1}, ruleDeadline, protocol.Timeout},
		{"the program's side did not run it", testFacts{notRun: true, program: protocol.ProgramError, grade: protocol.OK, first: -1}, ruleUnrun, protocol.JudgeFailure},
		{"unrun, the interactor's run gone first", testFacts{notRun: true, program: protocol.ProgramError, grade: protocol.JudgeFailure, first: i}, ruleUnrun, protocol.JudgeFailure},
		{"over the bound", testFacts{program: protocol.Timeout, stopped: true, grade: protocol.WrongAnswer, first: p, cut: true}, ruleCut, protocol.WrongAnswer},
		{"over the bound, the cut stream accepted", testFacts{program: protocol.Timeout, stopped: true, grade: protocol.OK, first: p, cut: true}, ruleCut, protocol.WrongAnswer},
		{"over the bound, the interactor failed", testFacts{program: protocol.Timeout, stopped: true, grade: protocol.JudgeFailure, first: p, cut: true}, ruleCut, protocol.WrongAnswer},
		{"over the bound after the interactor's stdout ended, then accepted", testFacts{program: protocol.Timeout, stopped: true, grade: protocol.OK, first: i, cut: true}, ruleCut, protocol.WrongAnswer},
		{"the interactor's verdict, then over the bound", testFacts{program: protocol.Timeout, stopped: true, grade: protocol.PresentationError, first: i, cut: true}, ruleInteractorFirst, protocol.PresentationError},
		{"the interactor failed, then over the bound", testFacts{program: protocol.Timeout, stopped: true, grade: protocol.JudgeFailure, first: i, cut: true}, ruleInteractorFirst, protocol.JudgeFailure},
		{"the interactor first, the program exited 0", testFacts{program: protocol.OK, grade: protocol.WrongAnswer, first: i}, ruleInteractorFirst, protocol.WrongAnswer},
		{"the interactor first, then a crash", testFacts{program: protocol.ProgramError, grade: protocol.WrongAnswer, first: i}, ruleInteractorFirst, protocol.WrongAnswer},
		{"the interactor first, then a time limit", testFacts{program: protocol.Timeout, grade: protocol.WrongAnswer, first: i}, ruleInteractorFirst, protocol.WrongAnswer},
		{"the interactor first, then out of memory", testFacts{program: protocol.OOM, grade: protocol.PresentationError, first: i}, ruleInteractorFirst, protocol.PresentationError},
		{"the interactor first with points, then a crash", testFacts{program: protocol.ProgramError, grade: protocol.Points, first: i}, ruleInteractorFirst, protocol.Points},
		{"the interactor failed first, then a crash", testFacts{program: protocol.ProgramError, grade: protocol.JudgeFailure, first: i}, ruleInteractorFirst, protocol.JudgeFailure},
		{"the interactor first, stopped at its end", testFacts{program: protocol.Timeout, stopped: true, grade: protocol.WrongAnswer, first: i}, ruleInteractorFirst, protocol.WrongAnswer},
		{"the program crashed first", testFacts{program: protocol.ProgramError, grade: protocol.WrongAnswer, first: p}, ruleProgramFailed, protocol.ProgramError},
		{"the program's own limit first", testFacts{program: protocol.CPUTimeout, grade: protocol.WrongAnswer, first: p}, ruleProgramFailed, protocol.CPUTimeout},
		{"the program crashed first, the interactor failed", testFacts{program: protocol.ProgramError, grade: protocol.JudgeFailure, first: p}, ruleProgramFailed, protocol.ProgramError},
		{"the interactor accepted first, then a crash", testFacts{program: protocol.ProgramError, grade: protocol.OK, first: i}, ruleProgramFailed, protocol.ProgramError},
		{"a crash, no end seen", testFacts{program: protocol.ProgramError, grade: protocol.WrongAnswer, first: -1}, ruleProgramFailed, protocol.ProgramError},
		{"the program exited 0 first", testFacts{program: protocol.OK, grade: protocol.WrongAnswer, first: p}, ruleGraded, protocol.WrongAnswer},
		{"the program exited 0 first, the interactor failed", testFacts{program: protocol.OK, grade: protocol.JudgeFailure, first: p}, ruleGraded, protocol.JudgeFailure},
		{"the interactor accepted first, stopped at its end", testFacts{program: protocol.Timeout, stopped: true, grade: protocol.OK, first: i}, ruleGraded, protocol.OK},
		{"its stdout ended first, stopped at the interactor's end", testFacts{program: protocol.Timeout, stopped: true, grade: protocol.WrongAnswer, first: p}, ruleGraded, protocol.WrongAnswer},
		{"both ok", testFacts{program: protocol.OK, grade: protocol.OK, first: p}, ruleGraded, protocol.OK},
		{"a checker's grade", testFacts{program: protocol.OK, grade: protocol.PresentationError, first: p}, ruleGraded, protocol.PresentationError},
		{"a checker's failure", testFacts{program: protocol.OK, grade: protocol.JudgeFailure, first: p}, ruleGraded, protocol.JudgeFailure},
		{"over a checker's bound, not graded", testFacts{program: protocol.OK, grade: protocol.JudgeFailure, first: p, cut: true}, ruleCut, protocol.WrongAnswer},
	} {
		rule, verdict := decideTest(c.facts)
		assert.Check(t, is.Equal(rule, c.rule), c.name)
		assert.Check(t, is.Equal(verdict, c.verdict), c.name)
	}
}
