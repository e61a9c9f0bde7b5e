package cli

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// TestStatusTable: the one table gives each verdict its exit status and
// its severity (its place); a verdict it does not know reads as an engine
// failure; an interrupted run exits 128+signal when a signal ended it.
func TestStatusTable(t *testing.T) {
	for i, r := range protocol.Verdicts {
		v := isolation.Verdict(r.Name)
		assert.Equal(t, status(v), r.Exit, v)
		assert.Equal(t, severity(v), i, v)
	}
	// The design's statuses, which scripts branch on (DESIGN.md §7).
	for v, want := range map[isolation.Verdict]int{protocol.OK: 0, protocol.ProgramError: 1, protocol.Rejected: 2,
		protocol.SandboxFailure: 3, protocol.Timeout: 124, protocol.EngineFailure: 125, protocol.OOM: 137} {
		assert.Equal(t, status(v), want, v)
	}
	assert.Equal(t, status("no-such"), 125, "an unknown verdict reads as an engine failure")
	assert.Equal(t, severity("no-such"), severity(protocol.EngineFailure))
	exits := byExit()
	assert.Assert(t, slices.IsSortedFunc(exits, func(a, b protocol.VerdictRow) int { return a.Exit - b.Exit }))
	assert.Equal(t, len(exits), len(protocol.Verdicts))

	ctx, cancel := context.WithCancelCause(context.Background())
	assert.Equal(t, resultStatus(ctx, protocol.Interrupted), 130)
	cancel(&signalError{sig: syscall.SIGTERM})
	assert.Equal(t, resultStatus(ctx, protocol.Interrupted), 143)
	assert.Equal(t, resultStatus(ctx, protocol.Timeout), 124)
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
	assert.Equal(t, strings.Count(md, "\n"), 2+len(protocol.Verdicts))
}

// TestRunExitCodes drives `run` through the fake docker for every verdict.
func TestRunExitCodes(t *testing.T) {
	t.Parallel()
	for mode, want := range map[string]struct {
		code    int
		verdict string
	}{
		"ok":                {0, "ok"},
		"program-error":     {1, "program_error"},
		"malformed":         {3, "sandbox_failure"},
		"nonzero-valid":     {3, "sandbox_failure"},
		"hang":              {124, "timeout"},
		"exit125":           {125, "engine_failure"},
		"warning":           {125, "engine_failure"},
		"exit137-oom":       {137, "oom"},
		"exit137-kill":      {3, "sandbox_failure"},
		"command-not-found": {127, "command_not_found"},
	} {
		// Only the fake that never answers meets the deadline; every other
		// answer must not depend on how fast a loaded machine starts the fake
		// (under -race a 2 s deadline once passed before an exit 137 was read).
		timeout := "60s"
		if want.verdict == "timeout" {
			timeout = "2s"
		}
		self, _, env := useFakeDocker(t, mode)
		code, out, errOut := runCLIEnv(t, env, "", "run", "--image", testImage, "--cli", self, "--timeout", timeout, "--code", "1+2")
		assert.Check(t, is.Equal(code, want.code), "%s: %s", mode, errOut)
		var res struct {
			Verdict  string `json:"verdict"`
			ExitCode int    `json:"exit_code"`
		}
		assert.Check(t, json.Unmarshal([]byte(out), &res), "%s: %s", mode, out)
		assert.Check(t, is.Equal(res.Verdict, want.verdict), mode)
		assert.Check(t, is.Equal(res.ExitCode, want.code), mode)
		assert.Check(t, (errOut == "") == (want.code == 0), "%s: one line on stderr for every failure: %q", mode, errOut)
		assert.Check(t, strings.Count(errOut, "\n") == map[bool]int{true: 0, false: 1}[want.code == 0], "%s: %q", mode, errOut)
	}
}

func TestExitCodeOfSignals(t *testing.T) {
	t.Parallel()
	for sig, want := range map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143} {
		err := &isolation.Error{Verdict: protocol.Interrupted, Err: &signalError{sig: sig}}
		assert.Equal(t, exitCode(err), want)
	}
	assert.Equal(t, exitCode(&limits.FieldError{Field: "memory", Msg: "x"}), 2)
	assert.Equal(t, exitCode(&isolation.Error{Verdict: protocol.OOM, Err: os.ErrClosed}), 137)
}
