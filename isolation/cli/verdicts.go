package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// The one verdict model: the errors an action returns, the one table from
// verdict to exit status and severity, and the table's views.

// verdictRow is one verdict of a run: the exit status the CLI gives it,
// its batch severity (a batch exits with the status of the most serious
// verdict among its results; 0 is the least serious) and what it means.
type verdictRow struct {
	verdict  isolation.Verdict
	exit     int
	severity int
	meaning  string
}

// verdicts is the one table from verdict to exit status and severity, in
// the order of the statuses. run's --help, the man page and the README's
// table of verdicts are its views, so none can drift from what the tool
// returns. An interrupted run exits 128+signal when a signal interrupted
// it (signalError.code), 130 otherwise; its views name each handled
// signal before its meaning.
var verdicts = []verdictRow{
	{isolation.OK, 0, 0, "valid response, the program succeeded (with tests: every test did)"},
	{isolation.ProgramError, 1, 4, "valid response, the program raised (syntax or runtime error); with tests, a test did"},
	{isolation.CompileError, 1, 5, "the image's compiler refused the source; \"compile\" holds what it said"},
	{isolation.Rejected, 2, 6, "bad flags or input, before any container starts; or --output-dir could not take the files"},
	{isolation.SandboxFailure, 3, 12, "the sandbox failed its hello (nothing was sent), or its response was bad"},
	{isolation.WrongAnswer, 4, 3, "with tests: a test's stdout differs from its expected output (or its --checker or --interactor said so), and no test did worse"},
	// As a wrong answer, as a judge counts them: the JSON verdict tells
	// them apart.
	{isolation.PresentationError, 4, 2, "with --checker or --interactor: a test's answer was right but laid out wrong (the checker's exit 2), and no test did worse"},
	{isolation.Points, 4, 1, "with --checker or --interactor: a test scored points (the checker's exit 7, its score in \"points\"), and no test did worse"},
	{isolation.JudgeFailure, 5, 11, "with --checker or --interactor: it could not grade a test (exit 3, a crash, a limit, its own run failed); never the program's"},
	{isolation.Timeout, 124, 7, "the run's deadline (--timeout: start and removal included; the program is stopped 100 ms before it, a runner that ignores that killed 2 s after it) passed, its output discarded; or a test's limit"},
	// As a timeout, as timeout(1) exits: the JSON verdict tells them apart.
	{isolation.CPUTimeout, 124, 8, "the program (or a test) used its --cpu-time of CPU and was stopped"},
	{isolation.EngineFailure, 125, 13, "docker failed: unreachable, no image, a discarded limit, an unconfirmed cleanup"},
	{isolation.CommandNotFound, 127, 10, "exec mode: the interpreter is not in the image"},
	{isolation.Interrupted, 130, 14, "(128 + the signal); the container was removed"},
	{isolation.OOM, 137, 9, "the program (or a test) exhausted its memory limit"},
}

// row is v's row; a verdict the table does not know reads as an engine
// failure: the tool could not do its job.
func row(v isolation.Verdict) verdictRow {
	for _, r := range verdicts {
		if r.verdict == v {
			return r
		}
	}
	return row(isolation.EngineFailure)
}

// status is v's exit status.
func status(v isolation.Verdict) int { return row(v).exit }

// severity orders verdicts from ok (0) up: of several, the greater is the
// more serious.
func severity(v isolation.Verdict) int { return row(v).severity }

// resultStatus is the exit status of a result: its verdict's, or for a run
// a signal interrupted, 128+signal.
func resultStatus(ctx context.Context, v isolation.Verdict) int {
	var sig *signalError
	if v == isolation.Interrupted && errors.As(context.Cause(ctx), &sig) {
		return sig.code()
	}
	return status(v)
}

// silentError carries an exit status for an outcome the command has
// already reported on stdout (a failed audit, a run's JSON verdict).
type silentError struct{ code int }

func (e *silentError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// rejected marks bad flags or input.
type rejected struct{ err error }

func (e *rejected) Error() string { return message(e.err) }
func (e *rejected) Unwrap() error { return e.err }

func rejectf(format string, a ...any) error { return &rejected{err: fmt.Errorf(format, a...)} }

// fieldError is the library's refusal of one option inside err, when err
// is that refusal, the CLI's rejection of it or the library's.
func fieldError(err error) *limits.FieldError {
	if r, ok := err.(*rejected); ok {
		err = r.err
	}
	if r, ok := err.(*isolation.Error); ok && r.Verdict == isolation.Rejected {
		err = r.Err
	}
	fe, _ := err.(*limits.FieldError)
	return fe
}

// message is err's text with a bad option named as the flag that set it:
// the library says "memory: ...", the CLI "--memory: ...".
func message(err error) string {
	if fe := fieldError(err); fe != nil {
		return fe.FlagError()
	}
	return err.Error()
}

// isRejected reports whether err is the library's refusal of bad options
// or input, made before any container started.
func isRejected(err error) bool {
	var ie *isolation.Error
	return errors.As(err, &ie) && ie.Verdict == isolation.Rejected
}

// writeFailed is a result that could not be written to stdout: the tool
// failed at its job, whatever the verdict was.
func writeFailed(err error) error {
	return &isolation.Error{Verdict: isolation.EngineFailure, Err: fmt.Errorf("writing the result: %w", err)}
}

// exitCode maps any error an action returns to the documented exit status.
func exitCode(err error) int {
	var (
		silent *silentError
		rej    *rejected
		flag   *limits.FieldError
		sig    *signalError
		ie     *isolation.Error
	)
	switch {
	case errors.As(err, &silent):
		return silent.code
	case errors.As(err, &sig):
		return sig.code()
	case errors.As(err, &rej), errors.As(err, &flag):
		return status(isolation.Rejected)
	case errors.As(err, &ie):
		return status(ie.Verdict)
	}
	return status(isolation.EngineFailure) // the tool could not do its job
}

// exitFailedCheck is the status of a report whose checks did not all
// pass (audit: a boundary missing or violated; doctor: a check failed).
// It is no verdict of a run; bad flags and input are the verdict
// rejected, whose status the table gives.
const exitFailedCheck = 1

// exitStatus is one line of the exit status list.
type exitStatus struct {
	code       int
	name, when string
}

// exitStatuses are every verdict's status, an interrupted run's once per
// handled signal, in numeric order, for run's --help and the man page.
func exitStatuses() []exitStatus {
	var list []exitStatus
	for _, r := range verdicts {
		if r.verdict != isolation.Interrupted {
			list = append(list, exitStatus{r.exit, string(r.verdict), r.meaning})
			continue
		}
		for _, sig := range handledSignals {
			list = append(list, exitStatus{128 + int(sig), string(r.verdict), unix.SignalName(sig) + " " + r.meaning})
		}
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].code < list[j].code })
	return list
}

// exitStatusText is the exit status list for run's --help: one line a
// status.
func exitStatusText() string {
	var b strings.Builder
	for _, s := range exitStatuses() {
		fmt.Fprintf(&b, "%3d  %-18s %s\n", s.code, s.name, s.when)
	}
	return b.String()
}

// shortExitText lists verdicts' statuses on one line, from the one
// table: "0 ok, 1 program_error, ...".
func shortExitText(vs ...isolation.Verdict) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = fmt.Sprintf("%d %s", status(v), v)
	}
	return strings.Join(parts, ", ")
}

// batchExitText says how batch picks its exit status: the verdicts a
// result can have listed from the most serious down, as the table ranks
// them, then bad flags and the signals.
func batchExitText() string {
	var vs []isolation.Verdict
	for _, r := range verdicts {
		if r.verdict != isolation.OK && r.verdict != isolation.Interrupted {
			vs = append(vs, r.verdict)
		}
	}
	slices.SortFunc(vs, func(a, b isolation.Verdict) int { return severity(b) - severity(a) })
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = string(v)
	}
	sigs := make([]string, len(handledSignals))
	for i, sig := range handledSignals {
		sigs[i] = fmt.Sprintf("%d on %s", 128+int(sig), unix.SignalName(sig))
	}
	return "0 when every result is ok; otherwise the status of the most serious verdict among the results\n" +
		"(" + strings.Join(names, ", ") + "; statuses as in run --help);\n" +
		fmt.Sprintf("%d for bad flags, before any container starts; %s (128 + the signal).\n", status(isolation.Rejected), strings.Join(sigs, ", "))
}

// verdictsMarkdown is the table as the README shows it, in the table's
// order: one row a verdict, an interrupted run's statuses in one cell.
func verdictsMarkdown() string {
	var b strings.Builder
	b.WriteString("| verdict | when | exit |\n|---|---|---|\n")
	for _, r := range verdicts {
		meaning, exit := r.meaning, fmt.Sprint(r.exit)
		if r.verdict == isolation.Interrupted {
			names, codes := make([]string, len(handledSignals)), make([]string, len(handledSignals))
			for i, sig := range handledSignals {
				names[i], codes[i] = unix.SignalName(sig), fmt.Sprint(128+int(sig))
			}
			meaning, exit = strings.Join(names, " or ")+" "+meaning, strings.Join(codes, ", ")
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", r.verdict, strings.ReplaceAll(meaning, "|", `\|`), exit)
	}
	return b.String()
}
