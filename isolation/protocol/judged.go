package protocol

import (
	"errors"
	"fmt"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// checkJudged holds a judge's response to its own rules: the compile
// step's output within limits.MaxCompileOutput, a compile error exactly
// when the step failed, and then no tests; each test's verdict one a
// runner may give (Verdicts' Test) and agreeing with its error and
// match; all the kept output within limits.MaxOutputBytes.
func checkJudged(r Response) error {
	kept := len(r.Output) + len(r.Stderr)
	compileFailed := r.Error != nil && r.Error.Type == ErrCompile
	if c := r.Compile; c != nil {
		if len(c.Output)+len(c.Stderr) > limits.MaxCompileOutput {
			return fmt.Errorf("response: the compiler's output is %d bytes, over its %d byte cap", len(c.Output)+len(c.Stderr), limits.MaxCompileOutput)
		}
		if err := checkStep("compile", *c); err != nil {
			return err
		}
		kept += len(c.Output) + len(c.Stderr)
		if compileFailed != (c.Error != nil) {
			return errors.New("response: a compile error disagrees with the compile step")
		}
	} else if compileFailed {
		return errors.New("response: a compile error without a compile step")
	}
	if compileFailed && r.Tests != nil {
		return errors.New("response: tests run after a failed compile")
	}
	for _, t := range r.Tests {
		if err := checkTest(t); err != nil {
			return err
		}
		kept += len(t.Output) + len(t.Stderr)
	}
	if kept > limits.MaxOutputBytes {
		return fmt.Errorf("response: output kept in all is %d bytes, over the %d byte cap", kept, limits.MaxOutputBytes)
	}
	return nil
}

// checkTest holds one test's result to its rules.
func checkTest(t TestResult) error {
	name := fmt.Sprintf("test %q", t.Name)
	if err := checkTestVerdict(t.Verdict); err != nil {
		return fmt.Errorf("response: %s: %w", name, err)
	}
	judgedOK := t.Verdict == TestOK || t.Verdict == TestWrongAnswer
	switch {
	case judgedOK != (t.Error == nil):
		return fmt.Errorf("response: %s: verdict %s disagrees with its error", name, t.Verdict)
	case (t.Verdict == TestWrongAnswer) != (t.Match != nil && !*t.Match):
		return fmt.Errorf("response: %s: verdict %s disagrees with its match", name, t.Verdict)
	case t.Error != nil && t.Match != nil:
		return fmt.Errorf("response: %s: a failed test compared", name)
	case t.Stopped && (t.Verdict != TestTimeout || t.NotRun):
		return fmt.Errorf("response: %s: stopped at the other side's end, yet %s", name, t.Verdict)
	case t.NotRun && t.Verdict != TestTimeout && (t.Verdict != TestProgramError || t.Error == nil || t.Error.Type != ErrInternal):
		return fmt.Errorf("response: %s: not run, yet %s", name, t.Verdict)
	case t.Dropped && (t.Output != "" || t.Stderr != "" || t.Match == nil || !*t.Match):
		return fmt.Errorf("response: %s: output dropped, yet kept or not matched", name)
	}
	return checkStep(name, t.Step)
}

// checkStep holds a step's counts to their rules: none negative, a
// replaced byte one that was counted, its text no longer than its count
// allows.
func checkStep(name string, s Step) error {
	switch {
	case s.OutputBytes < 0 || s.StderrBytes < 0 || s.WallMicros < 0:
		return fmt.Errorf("response: %s: a negative count", name)
	case s.OutputReplaced < 0 || s.OutputReplaced > s.OutputBytes || s.StderrReplaced < 0 || s.StderrReplaced > s.StderrBytes:
		return fmt.Errorf("response: %s: replaced bytes disagree with the counts", name)
	case s.Error != nil && s.Error.Type == "":
		return fmt.Errorf("response: %s: an error without a type", name)
	case s.Usage != nil && ((s.Usage.CPUMicros != nil && *s.Usage.CPUMicros < 0) || (s.Usage.MemoryPeakBytes != nil && *s.Usage.MemoryPeakBytes < 0)):
		return fmt.Errorf("response: %s: negative usage", name)
	}
	return nil
}
