package fakedocker

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

func TestMain(m *testing.M) {
	Main()
	os.Exit(m.Run())
}

// docker runs this test binary as the fake docker in mode.
func docker(t *testing.T, mode, state, stdin string, args ...string) (stdout string, status int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	// Under -race an exiting program waits a second for the detector's
	// report; the fake has none to give.
	cmd.Env = append(os.Environ(), EnvMode+"="+mode, EnvState+"="+state, "GORACE=atexit_sleep_ms=0")
	cmd.Stdin = strings.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout = &out
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return out.String(), exit.ExitCode()
	}
	assert.NilError(t, err)
	return out.String(), 0
}

// TestRunScenarios: a row's reply sets docker run's status and whether
// --rm removes the container; a row without one fails as an unknown mode.
func TestRunScenarios(t *testing.T) {
	for _, tc := range []struct {
		mode, source string
		status       int
		left         bool // the container outlives docker run
		started      bool // docker events reports its start
	}{
		{mode: "ok", started: true},
		{mode: "nonzero-valid", status: 1, started: true},
		{mode: "exit125", status: 125, left: true},
		{mode: "no-container", status: 1},
		{mode: "client-dies", status: 1, left: true, started: true},
		{mode: "hello-then-exit", started: true},
		{mode: "broken-cli", status: 2, left: true, started: true},
		{mode: "by-source", source: "exit137-kill", status: 137, started: true},
		{mode: "by-source", source: "hello-then-exit", status: 2, left: true, started: true},
	} {
		t.Run(tc.mode+"/"+tc.source, func(t *testing.T) {
			state := t.TempDir()
			_, status := docker(t, tc.mode, state, `{"source":"`+tc.source+`"}`,
				"run", "--name", "c1", "--label", labelRunID+"r1", "--memory", "64m", "img")
			assert.Equal(t, status, tc.status)
			assert.Equal(t, len(Containers(state)) == 1, tc.left)
			events, _ := docker(t, tc.mode, state, "", "events", "--filter", "event=start", "--filter", "label="+labelRunID+"r1")
			assert.Equal(t, events == "start\n", tc.started)
		})
	}
}

// TestCommandScenarios: the rows that change what docker's other
// commands say.
func TestCommandScenarios(t *testing.T) {
	state := t.TempDir()
	version, _ := docker(t, "broken-cli", state, "", "--version")
	assert.Equal(t, version, "Docker version 28.0.1, build fake\n")
	_, status := docker(t, "no-image", state, "", "image", "inspect", "img")
	assert.Equal(t, status, 1)
	_, status = docker(t, "unreachable", state, "", "ps")
	assert.Equal(t, status, 1)
	oom, _ := docker(t, "exec-oom", state, "", "events", "--filter", "event=oom")
	assert.Equal(t, oom, "oom\n")
	_, status = docker(t, "exec-oom-events-fail", state, "", "events", "--filter", "event=oom")
	assert.Equal(t, status, 1)
}
