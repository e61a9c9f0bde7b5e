package isolation

import (
	"fmt"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// How an interactive test is decided: the facts of its two sides and of
// its end are gathered into one value (interactiveFacts), and one pure
// function decides by ordered rules (decideInteractive), as judges do, by
// who ended first: an interactor's rejection that came first stands over
// the program's failure that followed it (an end of input, a crash, a
// time limit), and the program's own failure stands when it came first.

// interactiveFacts is what decides an interactive test.
type interactiveFacts struct {
	program Verdict // the program's side's verdict
	notRun  bool    // the program's side did not run the test
	stopped bool    // the program was stopped at the interactor's end, not at a limit of its own
	grade   Verdict // the interactor's grade (gradeOf); JudgeFailure when it did not grade
	first   int     // the side that ended first (testEnd); -1: neither did
	cut     bool    // the program passed limits.MaxInteractedOutput, and was stopped
}

// interactiveRule is the rule that decided a test.
type interactiveRule int

// The rules, in their order (decideInteractive).
const (
	// ruleDeadline: the request's timeout came before the test's turn,
	// as in any judge's request: a timeout.
	ruleDeadline interactiveRule = iota
	// ruleUnrun: the program's side did not run the test, for the
	// interactor's end or its runner's: the judge's failure.
	ruleUnrun
	// ruleInteractorFirst: the interactor ended first, and not with
	// OK: its grade (or its failure, the judge's), whatever the program
	// did after, passing the bound among the rest.
	ruleInteractorFirst
	// ruleCut: the program sent the interactor more than a test's bound:
	// its wrong answer, whatever the interactor made of the cut stream.
	ruleCut
	// ruleProgramFailed: the program failed on its own (a limit, a
	// crash, a nonzero exit) before the interactor ended, or after it
	// accepted: its verdict.
	ruleProgramFailed
	// ruleGraded: the interactor's grade.
	ruleGraded
)

// decideInteractive is a test's verdict from its facts, and the rule
// that gave it.
func decideInteractive(f interactiveFacts) (interactiveRule, Verdict) {
	switch {
	case f.notRun && f.program == Timeout:
		return ruleDeadline, Timeout
	case f.notRun:
		return ruleUnrun, JudgeFailure
	case f.first == interactorSide && f.grade != OK:
		return ruleInteractorFirst, f.grade
	case f.cut:
		return ruleCut, WrongAnswer
	case f.program != OK && !f.stopped:
		return ruleProgramFailed, f.program
	}
	return ruleGraded, f.grade
}

// endedFirstNames name the side that ended first in a result.
var endedFirstNames = map[int]string{programSide: "program", interactorSide: "interactor"}

// interactive decides each test of res from its facts: the program's
// side (res), the interactor's run ires (testlib's exits, gradeOf; a
// score from its stderr alone: its stdout went to the program) and the
// relay's account of each test's end, ends (decideInteractive). A test
// either side did not run, or the interactor did not grade, is the
// judge's failure, never the program's, unless the program's own failure
// (or its wrong answer past the stream's bound) came first.
func interactive(res *Result, ires Result, ends []testEnd) {
	graded := len(ires.Tests) == len(res.Tests)
	for i := range res.Tests {
		t := &res.Tests[i]
		run := &InteractorRun{}
		t.Interactor = run
		f := interactiveFacts{program: t.Verdict, notRun: t.NotRun, stopped: t.Stopped, grade: JudgeFailure, first: -1}
		if i < len(ends) {
			f.first, f.cut = ends[i].first, ends[i].cut
		}
		run.EndedFirst = endedFirstNames[f.first]
		var points *float64
		grade := &CheckerRun{Error: &ErrorDetail{Type: string(JudgeFailure), Message: notGraded(ires, graded)}}
		ran := graded && !ires.Tests[i].NotRun
		if graded {
			it := ires.Tests[i]
			run.Output, run.OutputBytes, run.OutputTruncated = it.Output, it.OutputBytes, it.OutputTruncated
			it.Output = ""
			if ran {
				f.grade, points, grade = gradeOf(it, "the interactor")
			}
		}
		rule, verdict := decideInteractive(f)
		t.Verdict = verdict
		switch rule {
		case ruleDeadline:
		case ruleUnrun:
			cause := "the program's side did not run the test"
			if t.Error != nil {
				cause += ": " + t.Error.Message
			}
			run.Error = &ErrorDetail{Type: string(JudgeFailure), Message: cause}
		case ruleCut:
			t.Stopped = false // by the host, at a bound of its own
			t.Error = &ErrorDetail{Type: string(WrongAnswer), Message: fmt.Sprintf(
				"its output to the interactor passed %d bytes, a test's bound: it was stopped there, and the interactor's grade of what it was given does not count",
				int64(limits.MaxInteractedOutput))}
			if ran {
				run.CheckerRun = *grade
			}
		case ruleProgramFailed:
			if ran {
				run.CheckerRun = *grade
			}
		case ruleInteractorFirst, ruleGraded:
			t.Points, run.CheckerRun, run.Graded = points, *grade, ran
			if t.Stopped {
				t.Error = nil // its runner stopped it at the interactor's end: no failure of its own
			}
		}
	}
	retake(res)
}

// notGraded is why the interactor's run ires graded no test, or (its
// tests answered for, graded) why it did not grade one it did not run.
func notGraded(ires Result, graded bool) string {
	switch {
	case ires.Error != nil:
		return "the interactor's run: " + ires.Error.Message
	case graded:
		return "the interactor did not run the test"
	}
	return "the interactor's run ended " + string(ires.Verdict)
}
