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
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// The one verdict model: the errors an action returns, and the views of
// the one table of verdicts (protocol.Verdicts: each verdict's exit
// status, its severity and when a run has it). run's --help, the man page
// and the README's table of verdicts are its views, so none can drift
// from what the tool returns. An interrupted run exits 128+signal when a
// signal interrupted it (signalError.code), 130 otherwise; its views name
// each handled signal before its meaning.

// status is v's exit status.
func status(v isolation.Verdict) int { return protocol.Verdicts[severity(v)].Exit }

// severity orders verdicts from ok (0) up, as the table does: of several,
// the greater is the more serious. A verdict the table does not know
// reads as an engine failure: the tool could not do its job.
func severity(v isolation.Verdict) int {
	if i := protocol.Severity(v); i >= 0 {
		return i
	}
	return protocol.Severity(protocol.EngineFailure)
}

// byExit is the table's rows in the order of their exit statuses, rows
// of one status from the least serious.
func byExit() []protocol.VerdictRow {
	rows := slices.Clone(protocol.Verdicts)
	slices.SortStableFunc(rows, func(a, b protocol.VerdictRow) int { return a.Exit - b.Exit })
	return rows
}

// resultStatus is the exit status of a result: its verdict's, or for a run
// a signal interrupted, 128+signal.
func resultStatus(ctx context.Context, v isolation.Verdict) int {
	var sig *signalError
	if v == protocol.Interrupted && errors.As(context.Cause(ctx), &sig) {
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
	if r, ok := err.(*isolation.Error); ok && r.Verdict == protocol.Rejected {
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
	return errors.As(err, &ie) && ie.Verdict == protocol.Rejected
}

// writeFailed is a result that could not be written to stdout: the tool
// failed at its job, whatever the verdict was.
func writeFailed(err error) error {
	return &isolation.Error{Verdict: protocol.EngineFailure, Err: fmt.Errorf("writing the result: %w", err)}
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
		return status(protocol.Rejected)
	case errors.As(err, &ie):
		return status(ie.Verdict)
	}
	return status(protocol.EngineFailure) // the tool could not do its job
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
	for _, r := range protocol.Verdicts {
		if r.Name != protocol.Interrupted {
			list = append(list, exitStatus{r.Exit, string(r.Name), r.When})
			continue
		}
		for _, sig := range handledSignals {
			list = append(list, exitStatus{128 + int(sig), string(r.Name), unix.SignalName(sig) + " " + r.When})
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
	var names []string
	for _, r := range slices.Backward(protocol.Verdicts) {
		if r.Name != protocol.OK && r.Name != protocol.Interrupted {
			names = append(names, string(r.Name))
		}
	}
	sigs := make([]string, len(handledSignals))
	for i, sig := range handledSignals {
		sigs[i] = fmt.Sprintf("%d on %s", 128+int(sig), unix.SignalName(sig))
	}
	return "0 when every result is ok; otherwise the status of the most serious verdict among the results\n" +
		"(" + strings.Join(names, ", ") + "; statuses as in run --help);\n" +
		fmt.Sprintf("%d for bad flags, before any container starts; %s (128 + the signal).\n", status(protocol.Rejected), strings.Join(sigs, ", "))
}

// verdictsMarkdown is the table as the README shows it, in the order of
// the exit statuses: one row a verdict, an interrupted run's statuses in
// one cell.
func verdictsMarkdown() string {
	var b strings.Builder
	b.WriteString("| verdict | when | exit |\n|---|---|---|\n")
	for _, r := range byExit() {
		meaning, exit := r.When, fmt.Sprint(r.Exit)
		if r.Name == protocol.Interrupted {
			names, codes := make([]string, len(handledSignals)), make([]string, len(handledSignals))
			for i, sig := range handledSignals {
				names[i], codes[i] = unix.SignalName(sig), fmt.Sprint(128+int(sig))
			}
			meaning, exit = strings.Join(names, " or ")+" "+meaning, strings.Join(codes, ", ")
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", r.Name, strings.ReplaceAll(meaning, "|", `\|`), exit)
	}
	return b.String()
}
