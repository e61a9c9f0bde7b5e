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
		{"both ok", TestResult{Verdict: OK}, interactorStep(0, "", false), relay.End{First: p}, OK, false, true},
		{"a wrong answer", TestResult{Verdict: OK}, interactorStep(1, "", false), relay.End{First: p}, WrongAnswer, false, true},
		{"points from stderr", TestResult{Verdict: OK}, points, relay.End{First: p}, Points, false, true},
		{"stopped at the interactor's end", TestResult{Verdict: Timeout, Stopped: true, Step: Step{Error: stopped}}, interactorStep(0, "", false), relay.End{First: i}, OK, false, true},
		{"stopped, the interactor gone", TestResult{Verdict: Timeout, Stopped: true, Step: Step{Error: stopped}}, interactorStep(0, protocol.ErrTimeout, false), relay.End{First: i}, JudgeFailure, false, true},
		{"the program crashed first", TestResult{Verdict: ProgramError, Step: Step{Error: crashed}}, interactorStep(1, "", false), relay.End{First: p}, ProgramError, true, false},
		{"the program's own limit first", TestResult{Verdict: Timeout, Step: Step{Error: ownLimit}}, interactorStep(1, "", false), relay.End{First: p}, Timeout, true, false},
		{"a crash at the interactor's end", TestResult{Verdict: ProgramError, Step: Step{Error: crashed}}, interactorStep(1, "", false), relay.End{First: i}, WrongAnswer, true, true},
		{"its own limit after the interactor's end", TestResult{Verdict: Timeout, Step: Step{Error: ownLimit}}, interactorStep(1, "", false), relay.End{First: i}, WrongAnswer, true, true},
		{"points, then a crash", TestResult{Verdict: ProgramError, Step: Step{Error: crashed}}, points, relay.End{First: i}, Points, true, true},
		{"a crash after the interactor accepted", TestResult{Verdict: ProgramError, Step: Step{Error: crashed}}, interactorStep(0, "", false), relay.End{First: i}, ProgramError, true, false},
		{"a crash after the interactor failed", TestResult{Verdict: ProgramError, Step: Step{Error: crashed}}, interactorStep(3, "", false), relay.End{First: i}, JudgeFailure, true, true},
		{"a crash after the interactor's run was gone", TestResult{Verdict: ProgramError, Step: Step{Error: crashed}}, interactorStep(0, "", true), relay.End{First: i}, JudgeFailure, true, false},
		{"a crash, no end seen", TestResult{Verdict: ProgramError, Step: Step{Error: crashed}}, interactorStep(1, "", false), relay.End{First: none}, ProgramError, true, false},
		{"over the bound, the cut stream accepted", TestResult{Verdict: Timeout, Stopped: true, Step: Step{Error: stopped}}, interactorStep(0, "", false), relay.End{First: p, Cut: true}, WrongAnswer, true, false},
		{"over the bound, the interactor failed", TestResult{Verdict: Timeout, Stopped: true, Step: Step{Error: stopped}}, interactorStep(0, protocol.ErrOOM, false), relay.End{First: p, Cut: true}, WrongAnswer, true, false},
		{"the interactor's verdict, then over the bound", TestResult{Verdict: Timeout, Stopped: true, Step: Step{Error: stopped}}, interactorStep(2, "", false), relay.End{First: i, Cut: true}, PresentationError, false, true},
		{"the interactor hung", TestResult{Verdict: OK}, interactorStep(0, protocol.ErrTimeout, false), relay.End{First: p}, JudgeFailure, false, true},
		{"the interactor failed", TestResult{Verdict: OK}, interactorStep(3, "", false), relay.End{First: p}, JudgeFailure, false, true},
		{"the interactor did not run it", TestResult{Verdict: OK}, interactorStep(0, "", true), relay.End{First: p}, JudgeFailure, false, false},
		{"the request's timeout came first", TestResult{Verdict: Timeout, NotRun: true, Step: Step{Error: &protocol.Error{Type: protocol.ErrTimeout, Message: "not run: the request's deadline of 10s came first"}}}, interactorStep(0, "", true), relay.End{First: none}, Timeout, true, false},
		{"the program's side did not run it", TestResult{Verdict: ProgramError, NotRun: true, Step: Step{Error: &protocol.Error{Type: protocol.ErrInternal, Message: "not run: the interactor ended before it"}}}, interactorStep(0, "", false), relay.End{First: none}, JudgeFailure, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.program.Name = "a"
			res := Result{Tests: []TestResult{c.program}}
			interactive(&res, Result{Verdict: OK, Tests: []TestResult{c.inter}}, []relay.End{c.end})
			got := res.Tests[0]
			assert.Check(t, is.Equal(got.Verdict, c.verdict))
			assert.Check(t, is.Equal(res.Verdict, c.verdict))
			assert.Check(t, is.Equal(got.Error != nil, c.err), "%+v", got.Error)
			assert.Assert(t, got.Interactor != nil)
			assert.Check(t, is.Equal(got.Interactor.Output, "100\nlower\n"))
			assert.Check(t, is.Equal(got.Interactor.Graded, c.graded))
			assert.Check(t, is.Equal(got.Interactor.EndedFirst, map[int]string{p: "program", i: "interactor", none: ""}[c.end.First]))
			if c.verdict == Points {
				assert.Assert(t, got.Points != nil)
				assert.Check(t, is.Equal(*got.Points, 0.5))
			}
			if c.verdict == JudgeFailure {
				assert.Check(t, got.Interactor.Error != nil && strings.Contains(res.Error.Message, "interactor") || strings.Contains(res.Error.Message, "side"), "%+v", res.Error)
			}
			if c.end.Cut && c.end.First == p { // the cut came first: its wrong answer
				assert.Check(t, !got.Stopped, "stopped at a bound of its own")
				if assert.Check(t, got.Error != nil && res.Error != nil) {
					assert.Check(t, is.Equal(got.Error.Type, string(WrongAnswer)))
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
	res := Result{Tests: []TestResult{{Name: "a", Verdict: OK}, {Name: "b", Verdict: OK}}}
	interactive(&res, Result{Verdict: CompileError, Error: &protocol.Error{Type: "compile_error", Message: "compilation failed: x"}}, []relay.End{{First: 1}, {First: 1}})
	for _, tc := range res.Tests {
		assert.Check(t, is.Equal(tc.Verdict, JudgeFailure))
		assert.Check(t, is.Equal(tc.Interactor.Error.Message, "the interactor's run: compilation failed: x"))
	}
	assert.Check(t, is.Equal(res.Verdict, JudgeFailure))
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
		{"the request's timeout came first", testFacts{notRun: true, program: Timeout, grade: JudgeFailure, first: -1}, ruleDeadline, Timeout},
		{"the program's side did not run it", testFacts{notRun: true, program: ProgramError, grade: OK, first: -1}, ruleUnrun, JudgeFailure},
		{"unrun, the interactor's run gone first", testFacts{notRun: true, program: ProgramError, grade: JudgeFailure, first: i}, ruleUnrun, JudgeFailure},
		{"over the bound", testFacts{program: Timeout, stopped: true, grade: WrongAnswer, first: p, cut: true}, ruleCut, WrongAnswer},
		{"over the bound, the cut stream accepted", testFacts{program: Timeout, stopped: true, grade: OK, first: p, cut: true}, ruleCut, WrongAnswer},
		{"over the bound, the interactor failed", testFacts{program: Timeout, stopped: true, grade: JudgeFailure, first: p, cut: true}, ruleCut, WrongAnswer},
		{"over the bound after the interactor's stdout ended, then accepted", testFacts{program: Timeout, stopped: true, grade: OK, first: i, cut: true}, ruleCut, WrongAnswer},
		{"the interactor's verdict, then over the bound", testFacts{program: Timeout, stopped: true, grade: PresentationError, first: i, cut: true}, ruleInteractorFirst, PresentationError},
		{"the interactor failed, then over the bound", testFacts{program: Timeout, stopped: true, grade: JudgeFailure, first: i, cut: true}, ruleInteractorFirst, JudgeFailure},
		{"the interactor first, the program exited 0", testFacts{program: OK, grade: WrongAnswer, first: i}, ruleInteractorFirst, WrongAnswer},
		{"the interactor first, then a crash", testFacts{program: ProgramError, grade: WrongAnswer, first: i}, ruleInteractorFirst, WrongAnswer},
		{"the interactor first, then a time limit", testFacts{program: Timeout, grade: WrongAnswer, first: i}, ruleInteractorFirst, WrongAnswer},
		{"the interactor first, then out of memory", testFacts{program: OOM, grade: PresentationError, first: i}, ruleInteractorFirst, PresentationError},
		{"the interactor first with points, then a crash", testFacts{program: ProgramError, grade: Points, first: i}, ruleInteractorFirst, Points},
		{"the interactor failed first, then a crash", testFacts{program: ProgramError, grade: JudgeFailure, first: i}, ruleInteractorFirst, JudgeFailure},
		{"the interactor first, stopped at its end", testFacts{program: Timeout, stopped: true, grade: WrongAnswer, first: i}, ruleInteractorFirst, WrongAnswer},
		{"the program crashed first", testFacts{program: ProgramError, grade: WrongAnswer, first: p}, ruleProgramFailed, ProgramError},
		{"the program's own limit first", testFacts{program: CPUTimeout, grade: WrongAnswer, first: p}, ruleProgramFailed, CPUTimeout},
		{"the program crashed first, the interactor failed", testFacts{program: ProgramError, grade: JudgeFailure, first: p}, ruleProgramFailed, ProgramError},
		{"the interactor accepted first, then a crash", testFacts{program: ProgramError, grade: OK, first: i}, ruleProgramFailed, ProgramError},
		{"a crash, no end seen", testFacts{program: ProgramError, grade: WrongAnswer, first: -1}, ruleProgramFailed, ProgramError},
		{"the program exited 0 first", testFacts{program: OK, grade: WrongAnswer, first: p}, ruleGraded, WrongAnswer},
		{"the program exited 0 first, the interactor failed", testFacts{program: OK, grade: JudgeFailure, first: p}, ruleGraded, JudgeFailure},
		{"the interactor accepted first, stopped at its end", testFacts{program: Timeout, stopped: true, grade: OK, first: i}, ruleGraded, OK},
		{"its stdout ended first, stopped at the interactor's end", testFacts{program: Timeout, stopped: true, grade: WrongAnswer, first: p}, ruleGraded, WrongAnswer},
		{"both ok", testFacts{program: OK, grade: OK, first: p}, ruleGraded, OK},
		{"a checker's grade", testFacts{program: OK, grade: PresentationError, first: p}, ruleGraded, PresentationError},
		{"a checker's failure", testFacts{program: OK, grade: JudgeFailure, first: p}, ruleGraded, JudgeFailure},
		{"over a checker's bound, not graded", testFacts{program: OK, grade: JudgeFailure, first: p, cut: true}, ruleCut, WrongAnswer},
	} {
		rule, verdict := decideTest(c.facts)
		assert.Check(t, is.Equal(rule, c.rule), c.name)
		assert.Check(t, is.Equal(verdict, c.verdict), c.name)
	}
}
