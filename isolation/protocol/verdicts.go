package protocol

import (
	"fmt"
	"slices"
)

// Verdict is the one outcome of a run, or of a test. Each names a row of
// the one table of verdicts, Verdicts, which holds its facts: the CLI's
// exit status, its severity, whose it is and its errors' prefix.
type Verdict string

// The verdicts.
const (
	OK             Verdict = "ok"
	ProgramError   Verdict = "program_error"
	Rejected       Verdict = "rejected"
	SandboxFailure Verdict = "sandbox_failure"
	Timeout        Verdict = "timeout"
	// CPUTimeout is the program stopped at its CPU-time limit
	// (limits.Config.CPUTime), where Timeout is the wall-clock limit.
	CPUTimeout    Verdict = "cpu_timeout"
	EngineFailure Verdict = "engine_failure"
	OOM           Verdict = "oom"
	Interrupted   Verdict = "interrupted"
	// CommandNotFound is exec mode's interpreter missing from the image
	// (or not executable there): the image's fault, not the program's.
	CommandNotFound Verdict = "command_not_found"
	// CompileError is a program its language's compile step refused
	// (the result's compile step says how).
	CompileError Verdict = "compile_error"
	// WrongAnswer is a judge's request whose most serious test ran and
	// wrote other than its expected output (or its checker said so).
	WrongAnswer Verdict = "wrong_answer"
	// PresentationError is a test its checker found right but laid out
	// wrong (exit 2); Points one it scored (exit 7, Points).
	PresentationError Verdict = "presentation_error"
	Points            Verdict = "points"
	// JudgeFailure is a test its checker could not grade: it failed
	// (exit 3), crashed, hung, or its own run failed. Never the
	// program's: the test's run is there as it was.
	JudgeFailure Verdict = "judge_failure"
)

// VerdictRow is one verdict's facts, a row of Verdicts: its name (as a
// Result, the CLI's JSON and a test's result spell it), the CLI's exit
// status for it, whose it is, whether a runner may give it to a test,
// the prefix of its errors' messages and when a run has it.
type VerdictRow struct {
	Name Verdict
	// Exit is the CLI's exit status; an interrupted run's is 128+signal
	// when a signal ended it.
	Exit  int
	Owner Owner
	// Test: a runner may give it to a test (TestResult.Verdict); the
	// host gives a test the others a grader's exit decides.
	Test bool
	// Prefix begins the message of the verdict's errors ("": none; a
	// rejection's message is its cause alone).
	Prefix string
	// When is when a run has it, in the words of the CLI's help and the
	// README's table of verdicts.
	When string
}

// Owner is whose a verdict is.
type Owner string

// A verdict is the program's or the sandbox's.
const (
	// Program: the program's own outcome, its failure or a limit it
	// reached; a judgement of the program.
	Program Owner = "program"
	// Sandbox: the sandbox's side of the boundary (the container, the
	// engine, a judge's grader, the caller's request or interrupt);
	// never a judgement of the program.
	Sandbox Owner = "sandbox"
)

// Verdicts is the one table of verdicts, from the least serious to the
// most (Severity): a judge's request takes its most serious test's
// verdict, and a batch exits with the status of its most serious
// result's. Every other view is derived from it: the host's verdicts
// and their errors' prefixes, the CLI's exit statuses, its help and the
// README's table, and the verdicts a runner may give a test.
var Verdicts = []VerdictRow{
	// name, exit status, owner, a runner's test verdict, error prefix, when
	{OK, 0, Program, true, "", "valid response, the program succeeded (with tests: every test did)"},
	{Points, 4, Program, false, "", "with --checker or --interactor: a test scored points (the checker's exit 7, its score in \"points\"), and no test did worse"},
	// As a wrong answer, as a judge counts them: the JSON verdict tells
	// them apart.
	{PresentationError, 4, Program, false, "", "with --checker or --interactor: a test's answer was right but laid out wrong (the checker's exit 2), and no test did worse"},
	{WrongAnswer, 4, Program, true, "", "with tests: a test's stdout differs from its expected output (or its --checker or --interactor said so), and no test did worse"},
	{ProgramError, 1, Program, true, "", "valid response, the program raised (syntax or runtime error); with tests, a test did"},
	{CompileError, 1, Program, false, "", "the image's compiler refused the source; \"compile\" holds what it said"},
	{Rejected, 2, Sandbox, false, "", "bad flags or input, before any container starts; or --output-dir could not take the files"},
	{Timeout, 124, Program, true, "timeout: ", "the run's deadline (--timeout: start and removal included; the program is stopped 100 ms before it, a runner that ignores that killed 2 s after it) passed, its output discarded; or a test's limit"},
	// As a timeout, as timeout(1) exits: the JSON verdict tells them
	// apart.
	{CPUTimeout, 124, Program, true, "cpu timeout: ", "the program (or a test) used its --cpu-time of CPU and was stopped"},
	{OOM, 137, Program, true, "out of memory: ", "the program (or a test) exhausted its memory limit"},
	{CommandNotFound, 127, Sandbox, false, "command not found: ", "exec mode: the interpreter is not in the image"},
	{JudgeFailure, 5, Sandbox, false, "", "with --checker or --interactor: it could not grade a test (exit 3, a crash, a limit, its own run failed); never the program's"},
	{SandboxFailure, 3, Sandbox, false, "sandbox failure: ", "the sandbox failed its hello (nothing was sent), or its response was bad"},
	{EngineFailure, 125, Sandbox, false, "engine failure: ", "docker failed: unreachable, no image, a discarded limit, an unconfirmed cleanup"},
	// Its views name each signal the CLI handles before its meaning.
	{Interrupted, 130, Sandbox, false, "interrupted: ", "(128 + the signal); the container was removed"},
}

// Severity is the verdict name's place in Verdicts: of two verdicts the
// greater is the more serious; -1 for a name that is none.
func Severity(name Verdict) int {
	return slices.IndexFunc(Verdicts, func(r VerdictRow) bool { return r.Name == name })
}

// checkTestVerdict refuses a test's verdict a runner may not give (Test).
func checkTestVerdict(name string) error {
	if i := Severity(Verdict(name)); i >= 0 && Verdicts[i].Test {
		return nil
	}
	var given []string
	for _, r := range Verdicts {
		if r.Test {
			given = append(given, string(r.Name))
		}
	}
	return fmt.Errorf("verdict %q is none of %v", name, given)
}
