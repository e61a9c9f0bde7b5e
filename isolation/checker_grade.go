package isolation

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/relay"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/spool"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// How a checker's runs grade a checked request's tests (runChecked).

// passVerdict is the checker pass's verdict from its run's result cres:
// OK when it answered for all n tests, whatever it graded them (its
// result's verdict is then the worst grade's, a program's verdict); else
// the run's own, why it could not.
func passVerdict(cres Result, n int) Verdict {
	if len(cres.Tests) == n { // a compile error answers for no test
		return protocol.OK
	}
	return cres.Verdict
}

// passError is the pass's error: none when it answered for all n tests
// (its grades are the tests'), else the run's, why it could not.
func passError(cres Result, n int) *protocol.Error {
	if passVerdict(cres, n) == protocol.OK {
		return nil
	}
	return cres.Error
}

// grade puts the checker's grades (cres, the check's result, whose tests
// are res's graded ones) into res's tests, each test's verdict decided by
// its facts (decideTest), and takes res's verdict anew: its most serious
// test's. A check that did not run to its end grades every test it was to
// grade a JudgeFailure, its cause named.
func grade(res *Result, graded []int, cres Result) {
	for k, i := range graded {
		t := &res.Tests[i]
		f := testFacts{program: t.Verdict, notRun: t.NotRun, grade: protocol.JudgeFailure, first: relay.Program}
		var points *float64
		if len(cres.Tests) == len(graded) {
			f.grade, points, t.Checker = gradeOf(cres.Tests[k], "the checker")
		} else {
			cause := "the checker's run ended " + string(cres.Verdict)
			if cres.Error != nil {
				cause = cres.Error.Message
			}
			t.Checker = &CheckerRun{Error: &protocol.Error{Type: string(protocol.JudgeFailure), Message: cause}}
		}
		rule, verdict := decideTest(f)
		t.Verdict = verdict
		if rule == ruleGraded {
			t.Points = points
		}
	}
	retake(res)
}

// retake takes res's verdict anew from its tests: its most serious
// test's, and that test's error.
func retake(res *Result) {
	j := judgement{verdict: worst(res.Tests), tests: res.Tests}
	res.Verdict, res.Error = j.verdict, j.judgedError(nil)
}

// overBound decides each test whose stdout was over what a checker is
// given (limits.MaxCheckedOutput a test, MaxCheckedTotal in all) by its
// facts (decideTest: a wrong answer): a checker shown a cut output could
// accept what the program never gave whole (the right answer, then
// anything), so none is shown one; the result keeps both counts.
func overBound(tests []TestResult, outputs *spool.Spool) {
	for i := range tests {
		t := &tests[i]
		n, ok := outputs.Size(i)
		if !ok || t.Verdict != protocol.OK || n >= t.OutputBytes {
			continue
		}
		_, t.Verdict = decideTest(testFacts{program: t.Verdict, grade: protocol.JudgeFailure, first: relay.Program, cut: true})
		t.CheckedBytes = nil
		t.Error = &protocol.Error{Type: string(t.Verdict), Message: fmt.Sprintf(
			"its stdout, %d bytes, is over what a checker is given (%d bytes a test, %d in all); it was not graded",
			t.OutputBytes, limits.MaxCheckedOutput, int64(limits.MaxCheckedTotal))}
	}
}

// gradeOf is a test's grade from its checker's run c (who: "the
// checker", or "the interactor"): testlib's exits (protocol.Check*); any
// other end is the judge's failure.
func gradeOf(c TestResult, who string) (Verdict, *float64, *CheckerRun) {
	run := &CheckerRun{Message: cut(c.Stderr, limits.MaxCheckerMessage), WallMS: c.WallMS, Usage: c.Usage}
	if c.Exit != nil && c.Exit.Code >= 0 {
		code := c.Exit.Code
		run.ExitCode = &code
	}
	fail := func(format string, args ...any) (Verdict, *float64, *CheckerRun) {
		run.Error = &protocol.Error{Type: string(protocol.JudgeFailure), Message: fmt.Sprintf(format, args...)}
		return protocol.JudgeFailure, nil, run
	}
	switch {
	case c.Verdict == protocol.OK:
		return protocol.OK, nil, run
	case run.ExitCode == nil || c.Error == nil || c.Error.Type != protocol.ErrExec:
		msg := string(c.Verdict)
		if c.Error != nil {
			msg = c.Error.Message
		}
		return fail("%s did not grade the test: %s", who, msg)
	}
	switch *run.ExitCode {
	case protocol.CheckWrongAnswer:
		return protocol.WrongAnswer, nil, run
	case protocol.CheckPresentationError:
		return protocol.PresentationError, nil, run
	case protocol.CheckPoints:
		if p, ok := score(c.Output, c.Stderr); ok {
			return protocol.Points, &p, run
		}
		return fail("%s exited 7 (points) with no score", who)
	case protocol.CheckFailed:
		return fail("%s failed (exit 3): %s", who, run.Message)
	}
	return fail("%s exited %d, none of testlib's grades (0, 1, 2, 7)", who, *run.ExitCode)
}

// score is a points grade's score: the first word of the checker's
// stdout, else the word after "points" at the head of its stderr
// (testlib's quitp), a finite number.
func score(stdout, stderr string) (float64, bool) {
	word := func(s string) string {
		if f := strings.Fields(s); len(f) > 0 {
			return f[0]
		}
		return ""
	}
	w := word(stdout)
	if rest, ok := strings.CutPrefix(strings.TrimSpace(stderr), "points "); w == "" && ok {
		w = word(rest)
	}
	p, err := strconv.ParseFloat(w, 64)
	return p, err == nil && !math.IsInf(p, 0) && !math.IsNaN(p)
}

// says is what the checker (who: the checker, or the interactor) said
// of a test graded v, for the request's error.
func (c *CheckerRun) says(who string, v Verdict) string {
	if c.Error != nil {
		return c.Error.Message
	}
	msg := who + ": " + strings.ReplaceAll(string(v), "_", " ")
	if c.Message != "" {
		msg += ": " + strings.TrimSpace(c.Message)
	}
	return msg
}

// cut is s's first n bytes, less a UTF-8 sequence the cut split.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}
