package cli

import (
	"context"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"

	"github.com/synapse-lang/synapse-isolation/isolation"
)

// TestStatusTable: one table gives each verdict its exit status and its
// severity; an interrupted run exits 128+signal when a signal ended it.
func TestStatusTable(t *testing.T) {
	order := []isolation.Verdict{isolation.OK, isolation.WrongAnswer, isolation.ProgramError, isolation.CompileError, isolation.Rejected,
		isolation.Timeout, isolation.CPUTimeout, isolation.OOM, isolation.CommandNotFound, isolation.SandboxFailure, isolation.EngineFailure,
		isolation.Interrupted}
	exits := []int{0, 4, 1, 1, 2, 124, 124, 137, 127, 3, 125, 130}
	for i, v := range order {
		assert.Equal(t, status(v), exits[i], v)
		assert.Equal(t, severity(v), i, v)
	}
	assert.Equal(t, status("no-such"), 125, "an unknown verdict reads as an engine failure")
	sorted := slices.Clone(order)
	slices.Reverse(sorted)
	slices.SortFunc(sorted, func(a, b isolation.Verdict) int { return severity(a) - severity(b) })
	assert.DeepEqual(t, sorted, order)

	ctx, cancel := context.WithCancelCause(context.Background())
	assert.Equal(t, resultStatus(ctx, isolation.Interrupted), 130)
	cancel(&signalError{sig: syscall.SIGTERM})
	assert.Equal(t, resultStatus(ctx, isolation.Interrupted), 143)
	assert.Equal(t, resultStatus(ctx, isolation.Timeout), 124)
}

// readmePath is the module's README, whose table of verdicts is a view of
// the one table (verdictsMarkdown).
const readmePath = "../../README.md"

// The README's table of verdicts sits between these two lines.
const (
	verdictsStart = "<!-- verdicts -->\n"
	verdictsEnd   = "<!-- /verdicts -->\n"
)

// TestREADMEVerdicts: the README's table of verdicts is the one table as
// verdictsMarkdown renders it; with -update (gotest.tools' flag, as for
// the golden files) the test rewrites the README's section instead.
func TestREADMEVerdicts(t *testing.T) {
	b, err := os.ReadFile(readmePath)
	assert.NilError(t, err)
	before, rest, ok := strings.Cut(string(b), verdictsStart)
	assert.Assert(t, ok, "%s has no line %q", readmePath, verdictsStart)
	section, after, ok := strings.Cut(rest, verdictsEnd)
	assert.Assert(t, ok, "%s has no line %q after %q", readmePath, verdictsEnd, verdictsStart)
	// Blank lines around the table, so markdown ends it before the marker.
	want := "\n" + verdictsMarkdown() + "\n"
	if golden.FlagUpdate() {
		fi, err := os.Stat(readmePath)
		assert.NilError(t, err)
		assert.NilError(t, os.WriteFile(readmePath, []byte(before+verdictsStart+want+verdictsEnd+after), fi.Mode().Perm()))
		return
	}
	assert.Equal(t, section, want, "the README's table of verdicts is not the table's; run go test ./isolation/cli -run TestREADMEVerdicts -update")
}

func TestVerdictsMarkdown(t *testing.T) {
	md := verdictsMarkdown()
	assert.Assert(t, strings.HasPrefix(md, "| verdict | when | exit |\n|---|---|---|\n| ok | valid response, the program succeeded (with tests: every test did) | 0 |\n"), md)
	assert.Assert(t, strings.Contains(md, "\n| interrupted | SIGINT or SIGTERM (128 + the signal); the container was removed | 130, 143 |\n"), md)
	assert.Equal(t, strings.Count(md, "\n"), 2+len(verdicts))
}
