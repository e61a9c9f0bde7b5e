package cli

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/synapse-lang/synapse-isolation/isolation"
)

// verdictDocs says when each verdict happens; its exit status comes from
// the one table (statuses), so help and man cannot
// drift from what the tool returns.
var verdictDocs = []struct {
	verdict isolation.Verdict
	when    string
}{
	{isolation.OK, "valid response, the program succeeded"},
	{isolation.ProgramError, "valid response, the program raised (syntax or runtime error)"},
	{isolation.Rejected, "bad flags or input, before any container starts"},
	{isolation.SandboxFailure, "the sandbox failed its hello (nothing was sent), or its response was bad"},
	{isolation.Timeout, "the host deadline passed; the container was removed, its output discarded"},
	{isolation.CPUTimeout, "the program used its --cpu-time of CPU and was stopped; its output discarded"},
	{isolation.EngineFailure, "docker failed: unreachable, no image, a discarded limit, an unconfirmed cleanup"},
	{isolation.CommandNotFound, "exec mode: the interpreter is not in the image"},
	{isolation.OOM, "the program exhausted its memory limit"},
}

// exitStatus is one line of the exit status list.
type exitStatus struct {
	code       int
	name, when string
}

// exitStatuses are every verdict's status and the interrupted run's, in
// numeric order, for run's --help and the man page.
func exitStatuses() []exitStatus {
	list := []exitStatus{
		{130, "interrupted", "SIGINT (128 + the signal); the container was removed"},
		{143, "interrupted", "SIGTERM (128 + the signal); the container was removed"},
	}
	for _, d := range verdictDocs {
		list = append(list, exitStatus{status(d.verdict), string(d.verdict), d.when})
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].code < list[j].code })
	return list
}

// exitStatusText is the exit status list for run's --help: one line a
// status.
func exitStatusText() string {
	var b strings.Builder
	for _, s := range exitStatuses() {
		fmt.Fprintf(&b, "%3d  %-17s %s\n", s.code, s.name, s.when)
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

// batchExitText says how batch picks its exit status, the verdicts
// listed from the most serious down, as the table ranks them.
func batchExitText() string {
	var vs []isolation.Verdict
	for _, d := range verdictDocs {
		if d.verdict != isolation.OK {
			vs = append(vs, d.verdict)
		}
	}
	slices.SortFunc(vs, func(a, b isolation.Verdict) int { return severity(b) - severity(a) })
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = string(v)
	}
	return "0 when every result is ok; otherwise the status of the most serious verdict among the results\n" +
		"(" + strings.Join(names, ", ") + "; statuses as in run --help);\n" +
		fmt.Sprintf("%d for bad flags, before any container starts; 130 on SIGINT, 143 on SIGTERM (128 + the signal).\n", status(isolation.Rejected))
}
