package removal

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/docker"
	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
)

// reaperCLI writes a docker that logs each call and lists one container
// until it is removed.
func reaperCLI(t *testing.T) (path, log string) {
	t.Helper()
	dir := t.TempDir()
	path, log = filepath.Join(dir, "docker"), filepath.Join(dir, "calls")
	script := `#!/bin/sh
echo "$*" >>` + log + `
case "$*" in
  *" ps "*) [ -e ` + dir + `/removed ] || echo c0ffee ;;
  *" rm -f c0ffee") touch ` + dir + `/removed ;;
esac
`
	assert.NilError(t, fakedocker.WriteExecutable(path, []byte(script)))
	return path, log
}

// reaperClient is a client of the docker at path, on context.
func reaperClient(t *testing.T, path, context string) *docker.Client {
	t.Helper()
	c, err := docker.New(path, context, os.Environ())
	assert.NilError(t, err)
	return c
}

func calls(log string) string {
	b, _ := os.ReadFile(log)
	return string(b)
}

// TestReaperStandsDownOnceConfirmed: a supervisor that confirmed its
// container gone leaves the reaper nothing to do: it calls docker never.
func TestReaperStandsDownOnceConfirmed(t *testing.T) {
	t.Parallel()
	cli, log := reaperCLI(t)
	c := reaperClient(t, cli, "remote")
	r, err := StartReaper(c, "feedface")
	assert.NilError(t, err)
	r.Watch(os.Getpid())
	r.Settle(true)
	<-r.exited
	assert.Check(t, r.cmd.ProcessState.Success())
	assert.Equal(t, calls(log), "")
}

// TestReaperRemovesWhenTheSupervisorIsGone: the pipe closing without a
// confirmation (as at this process's death) makes the reaper (this test
// binary again, under reaperArg0) list the run's containers on the run's
// engine and remove them, until none is listed.
func TestReaperRemovesWhenTheSupervisorIsGone(t *testing.T) {
	t.Parallel()
	cli, log := reaperCLI(t)
	c := reaperClient(t, cli, "remote")
	r, err := StartReaper(c, "feedface")
	assert.NilError(t, err)
	r.Watch(1 << 30) // no such process: the client has ended
	start := time.Now()
	r.Settle(false)
	select {
	case <-r.exited:
	// A reaper's start and three docker calls: 0.2 s on a quiet machine.
	// A reaper that never trusted an empty listing would go on to
	// cleanupTimeout (30 s), and list more than the calls below.
	case <-time.After(time.Minute):
		t.Fatalf("reaper still running: %s", calls(log))
	}
	got := strings.Split(strings.TrimSpace(calls(log)), "\n")
	t.Logf("reaper ended after %s: %q", time.Since(start).Round(time.Millisecond), got)
	// The supervisor's own rule: the container found and removed, the
	// next empty listing is final.
	list := "--context remote ps --all --quiet --no-trunc --filter label=io.synapse-isolation.run-id=feedface"
	assert.DeepEqual(t, got, []string{list, "--context remote rm -f c0ffee", list})
}

// TestReaperWaitsOutTheClient: while the run's client lives, a create it
// sent may still land, so an empty listing is not yet final: here nothing
// is listed (the fake lists only under --context), the client (a sleep)
// ends 0.6 s after it started, and the reaper ends no sooner than settle
// after it saw that. Both bounds hold by construction: the clock starts
// before the client, and the reaper lists once to find the client gone
// and again after settle.
func TestReaperWaitsOutTheClient(t *testing.T) {
	t.Parallel()
	cli, log := reaperCLI(t)
	start := time.Now()
	sleeper := exec.Command("sleep", "0.6")
	assert.NilError(t, sleeper.Start())
	go func() { _ = sleeper.Wait() }()
	c := reaperClient(t, cli, "")
	r, err := StartReaper(c, "feedface")
	assert.NilError(t, err)
	r.Watch(sleeper.Process.Pid)
	r.Settle(false)
	<-r.exited
	took := time.Since(start)
	assert.Check(t, took >= 600*time.Millisecond+settle, "ended after %s", took)
	got := strings.Split(strings.TrimSpace(calls(log)), "\n")
	assert.Check(t, len(got) >= 2, "%d calls in %s", len(got), took)
	for _, call := range got {
		assert.Check(t, strings.HasPrefix(call, "ps "), "only listings: %q", call)
	}
}

// TestReaperUsage: a reaper started with the wrong arguments says so;
// one told its run is done ends at once.
func TestReaperUsage(t *testing.T) {
	for _, args := range [][]string{{reaperArg0, "feedface"}, {reaperArg0, "feedface", "/bin/docker", "--context"}} {
		code, ok := Reap(args, strings.NewReader(""))
		assert.Check(t, ok)
		assert.Check(t, code == 2, "%q: %d", args, code)
	}
	code, ok := Reap([]string{reaperArg0, "feedface", "/no/docker", "--context", "x"}, strings.NewReader("done\n"))
	assert.Check(t, ok && code == 0)
	// Any other program name is no reaper's: Reap returns at once.
	_, ok = Reap([]string{"synapse-isolation", "run"}, strings.NewReader("done\n"))
	assert.Check(t, !ok)
}
