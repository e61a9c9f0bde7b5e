package isolation

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"

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

func calls(log string) string {
	b, _ := os.ReadFile(log)
	return string(b)
}

// TestReaperStandsDownOnceConfirmed: a supervisor that confirmed its
// container gone leaves the reaper nothing to do: it calls docker never.
func TestReaperStandsDownOnceConfirmed(t *testing.T) {
	t.Parallel()
	cli, log := reaperCLI(t)
	c := &client{path: cli, context: "remote", env: os.Environ()}
	r, err := newReaper(c, "feedface")
	assert.NilError(t, err)
	r.watch(os.Getpid())
	r.settle(true)
	<-r.exited
	assert.Check(t, r.cmd.ProcessState.Success())
	assert.Equal(t, calls(log), "")
}

// TestReaperRemovesWhenTheSupervisorIsGone: the pipe closing without a
// confirmation (as at this process's death) makes the reaper list the
// run's containers on the run's engine and remove them, until none is
// listed and the client has ended.
func TestReaperRemovesWhenTheSupervisorIsGone(t *testing.T) {
	t.Parallel()
	cli, log := reaperCLI(t)
	c := &client{path: cli, context: "remote", env: os.Environ()}
	r, err := newReaper(c, "feedface")
	assert.NilError(t, err)
	r.watch(1 << 30) // no such process: the client has ended
	start := time.Now()
	r.settle(false)
	select {
	case <-r.exited:
	case <-time.After(10 * time.Second):
		t.Fatalf("reaper still running: %s", calls(log))
	}
	got := strings.Split(strings.TrimSpace(calls(log)), "\n")
	t.Logf("reaper ended after %s: %q", time.Since(start).Round(time.Millisecond), got)
	assert.Assert(t, len(got) >= 4, "%q", got)
	assert.Equal(t, got[0], "--context remote ps --all --quiet --no-trunc --filter label=io.synapse-isolation.run-id=feedface")
	assert.Equal(t, got[1], "--context remote rm -f c0ffee")
	for _, call := range got[2:] {
		assert.Equal(t, call, got[0])
	}
}

// TestReaperArgvIsTheClients: the reaper's command line is the client's:
// its docker commands are the ones the supervisor's removal runs, and its
// rounds, quiet rounds and interval are the same removal timings.
func TestReaperArgvIsTheClients(t *testing.T) {
	t.Parallel()
	c := &client{path: "/usr/bin/docker", context: "remote"}
	argv := c.reaperArgv("feedface")
	assert.DeepEqual(t, argv[:2], []string{"/bin/sh", "-c"})
	assert.DeepEqual(t, argv[3:], []string{"reaper", "feedface", "/usr/bin/docker", "--context", "remote"})
	for _, want := range []string{
		fmt.Sprintf("[ $n -lt %d ]", int(cleanupTimeout/retryEvery)),
		fmt.Sprintf("[ $quiet -ge %d ]", int(settle/retryEvery)),
		fmt.Sprintf("sleep %g ", retryEvery.Seconds()),
		`"$@" ps --all --quiet --no-trunc --filter "label=io.synapse-isolation.run-id=$id" 2>/dev/null`,
		`"$@" rm -f $ids >/dev/null`,
	} {
		assert.Check(t, strings.Contains(argv[2], want), "%q not in the script:\n%s", want, argv[2])
	}
}
