package isolation

import (
	"fmt"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/relay"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// How a graded test's verdict is decided on the host, by a checker or an
// interactor: the facts of its program's side, its grader's grade (gradeOf,
// from the grader's exit) and its end are gathered into one value
// (testFacts), and one pure function decides by ordered rules
// (decideTest), as judges do, by who ended first: an interactor's
// rejection that came first stands over the program's failure that
// followed it (an end of input, a crash, a time limit), and the
// program's own failure stands when it came first. A checker runs once
// the program's side has ended, on what it passed through.

// testFacts is what decides a graded test.
type testFacts struct {
	program Verdict // the program's side's verdict, its runner's
	notRun  bool    // the program's side did not run the test
	stopped bool    // the program was stopped at the interactor's end, not at a limit of its own
	grade   Verdict // the grader's grade (gradeOf); JudgeFailure when it did not grade
	first   int     // the side that ended first (relay.End; relay.Program for a checker's test); -1: neither did
	// cut: the program's output passed its grader's bound (an
	// interactor's limits.MaxInteractedOutput, where it was stopped; a
	// checker's limits.MaxCheckedOutput, whose test it is not shown).
	cut bool
}

// testRule is the rule that decided a test.
type testRule int

// The rules, in their order (decideTest).
const (
	// ruleDeadline: the request's timeout came before the test's turn,
	// as in any judge's request: a timeout.
	ruleDeadline testRule = iota
	// ruleUnrun: the program's side did not run the test, for the
	// interactor's end or its runner's: the judge's failure.
	ruleUnrun
	// ruleInteractorFirst: the interactor ended first, and not with
	// OK: its grade (or its failure, the judge's), whatever the program
	// did after, passing the bound among the rest.
	ruleInteractorFirst
	// ruleCut: the program's output passed its grader's bound: its wrong
	// answer, whatever the grader made of the cut stream, or without it.
	ruleCut
	// ruleProgramFailed: the program failed on its own (a limit, a
	// crash, a nonzero exit) before the interactor ended, or after it
	// accepted: its verdict. A checker grades no such test.
	ruleProgramFailed
	// ruleGraded: the grader's grade.
	ruleGraded
)

// decideTest is a graded test's verdict from its facts, and the rule that
// gave it: the one place the host decides a test's verdict (the runner
// decides a compared test's from its process).
func decideTest(f testFacts) (testRule, Verdict) {
	switch {
	case f.notRun && f.program == protocol.Timeout:
		return ruleDeadline, protocol.Timeout
	case f.notRun:
		return ruleUnrun, protocol.JudgeFailure
	case f.first == relay.Interactor && f.grade != protocol.OK:
		return ruleInteractorFirst, f.grade
	case f.cut:
		return ruleCut, protocol.WrongAnswer
	case f.program != protocol.OK && !f.stopped:
		return ruleProgramFailed, f.program
	}
	return ruleGraded, f.grade
}

// endedFirstNames name the side that ended first in a result.
var endedFirstNames = map[int]string{relay.Program: "program", relay.Interactor: "interactor"}

// interactive decides each test of res from its facts: the program's
// side (res), the interactor's run ires (testlib's exits, gradeOf; a
// score from its stderr alone: its stdout went to the program) and the
// relay's account of each test's end, ends (decideTest). A test
// either side did not run, or the interactor did not grade, is the
// judge's failure, never the program's, unless the program's own failure
// (or its wrong answer past the stream's bound) came first.
func interactive(res *Result, ires Result, ends []relay.End) {
	graded := len(ires.Tests) == len(res.Tests)
	for i := range res.Tests {
		t := &res.Tests[i]
		run := &InteractorRun{}
		t.Interactor = run
		f := testFacts{program: t.Verdict, notRun: t.NotRun, stopped: t.Stopped, grade: protocol.JudgeFailure, first: -1}
		if i < len(ends) {
			f.first, f.cut = ends[i].First, ends[i].Cut
		}
		run.EndedFirst = endedFirstNames[f.first]
		var points *float64
		grade := &CheckerRun{Error: &protocol.Error{Type: string(protocol.JudgeFailure), Message: notGraded(ires, graded)}}
		ran := graded && !ires.Tests[i].NotRun
		if graded {
			it := ires.Tests[i]
			run.Output, run.OutputBytes, run.OutputTruncated = it.Output, it.OutputBytes, it.OutputTruncated
			it.Output = ""
			if ran {
				f.grade, points, grade = gradeOf(it, "the interactor")
			}
		}
		rule, verdict := decideTest(f)
		t.Verdict = verdict
		switch rule {
		case ruleDeadline:
		case ruleUnrun:
			cause := "the program's side did not run the test"
			if t.Error != nil {
				cause += ": " + t.Error.Message
			}
			run.Error = &protocol.Error{Type: string(protocol.JudgeFailure), Message: cause}
		case ruleCut:
			t.Stopped = false // by the host, at a bound of its own
			t.Error = &protocol.Error{Type: string(protocol.WrongAnswer), Message: fmt.Sprintf(
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
