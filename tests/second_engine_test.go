package tests

import (
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/poll"
)

// labelled lists, on the machine's engine (e == nil) or the second one,
// the containers carrying the tool's run-id label, in any state.
func labelled(t *testing.T, e *secondEngine, runID string) []string {
	t.Helper()
	args := []string{"ps", "--all", "--quiet", "--filter", "label=io.synapse-isolation.run-id" + runID}
	var out []byte
	var err error
	if e == nil {
		out, err = exec.Command("docker", args...).Output()
	} else {
		out, err = e.docker(args...)
	}
	assert.NilError(t, err)
	return strings.Fields(string(out))
}

// foreignLeftover puts a container on the machine's engine that looks left
// behind by the tool (its label, a deadline long past): nothing aimed at
// the second engine may touch it. A gc on the machine's engine would, by
// right: the gc lock is held while it exists, so a second copy of the
// suite runs none then.
func foreignLeftover(t *testing.T) string {
	t.Helper()
	holdGC(t)
	out, err := exec.Command("docker", "create", "--network", "none",
		"--label", "io.synapse-isolation.run-id=sentinel"+time.Now().Format("150405.000000"),
		"--label", "io.synapse-isolation.deadline=1", refImage).Output()
	assert.NilError(t, err)
	id := strings.TrimSpace(string(out))
	t.Cleanup(func() { _ = exec.Command("docker", "rm", "-f", id).Run() })
	return id
}

// startOnSecond starts an endless run on the second engine with the
// given timeout and waits until its container is there.
func startOnSecond(t *testing.T, e *secondEngine, timeout string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(toolBin, "run", "--context", e.context, "--image", refImage, "--timeout", timeout, "--code", "while True:\n  pass")
	cmd.Env = append(cmd.Environ(), e.env()...)
	var stdout strings.Builder
	cmd.Stdout = &stdout
	assert.NilError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	poll.WaitOn(t, func(poll.LogT) poll.Result {
		if len(labelled(t, e, "")) > 0 {
			return poll.Success()
		}
		return poll.Continue("no container on the second engine yet")
	}, poll.WithTimeout(30*time.Second), poll.WithDelay(50*time.Millisecond))
	return cmd, &stdout
}

func assertExists(t *testing.T, id string) {
	t.Helper()
	assert.Check(t, exec.Command("docker", "inspect", "--format", "{{.Id}}", id).Run() == nil, "container %s on the machine's engine is gone", id)
}

// TestSecondEngineTimeoutAndOOMStayThere: --context sends the run, its
// cleanup and its OOM evidence to the second engine only. It counts only
// its own containers on the machine's engine (by owner and run id), which
// others may use at the same time.
func TestSecondEngineTimeoutAndOOMStayThere(t *testing.T) {
	needEngine(t)
	e := needSecondEngine(t)
	t.Parallel()
	s := foreignLeftover(t)

	// While a run on the second engine works, its container is there, not here.
	cmd, stdout := startOnSecond(t, e, "3s")
	owner := fmt.Sprintf("%s:%d:%s", bootID(t), cmd.Process.Pid, startTicks(t, cmd.Process.Pid))
	assert.Check(t, is.Len(ownedBy(t, owner), 0), "the run must not reach the machine's engine")
	err := cmd.Wait()
	var ee *exec.ExitError
	assert.Assert(t, err != nil && errors.As(err, &ee) && ee.ExitCode() == 124, "%v: %s", err, stdout.String())
	assert.Check(t, is.Contains(stdout.String(), `"verdict":"timeout"`))
	var res runJSON
	assert.NilError(t, json.Unmarshal([]byte(stdout.String()), &res))
	assert.Check(t, is.Len(labelled(t, e, "="+res.RunID), 0), "the timed-out container is removed on the second engine")
	assert.Check(t, is.Len(labelled(t, nil, "="+res.RunID), 0))

	r := tool(t, e.env(), "", "run", "--context", e.context, "--image", refImage, "--memory", "64m", "--code", "x = 'x' * (512 << 20)")
	assert.Check(t, is.Equal(r.code, 137), r.stderr)
	assert.Check(t, is.Equal(r.res.Verdict, "oom"))
	assert.Check(t, is.Len(labelled(t, e, "="+r.res.RunID), 0))
	assert.Check(t, is.Len(labelled(t, nil, "="+r.res.RunID), 0))

	// DOCKER_HOST reaches it too, without a context.
	r = tool(t, []string{"DOCKER_HOST=unix://" + e.sock}, "", "run", "--image", refImage, "--code", "1+2")
	assert.Check(t, is.Equal(r.code, 0), r.stderr)
	assert.Check(t, is.Len(labelled(t, e, "="+r.res.RunID), 0))
	assert.Check(t, is.Len(labelled(t, nil, "="+r.res.RunID), 0))

	assertExists(t, s)
}

// TestSecondEngineGC: a supervisor killed outright leaves its container on
// the second engine; gc aimed there removes it and nothing here.
func TestSecondEngineGC(t *testing.T) {
	needEngine(t)
	e := needSecondEngine(t)
	s := foreignLeftover(t)
	cmd, _ := startOnSecond(t, e, "60s")
	assert.NilError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	assert.Check(t, is.Len(labelled(t, e, ""), 1), "the killed run's container stays until gc")

	r := tool(t, e.env(), "", "gc", "--context", e.context, "--all")
	assert.Check(t, is.Equal(r.code, 0), r.stderr)
	assert.Check(t, is.Contains(r.stdout, "removed "))
	assert.Check(t, is.Len(labelled(t, e, ""), 0))
	assertExists(t, s)
}

func TestSecondEngineDoctor(t *testing.T) {
	needEngine(t)
	e := needSecondEngine(t)
	r := tool(t, e.env(), "", "doctor", "--context", e.context, "--image", refImage)
	assert.Check(t, is.Equal(r.code, 0), r.stdout+r.stderr)
}

// TestOldRunscIsRefusedByTheAttestation: Debian's runsc (gVisor release
// 20221219) accepts the whole argv but, seen from inside, does not enforce
// all of it; every run under it is refused at its hello, naming what is
// missing, before the program is sent (a spin that would run 30 s ends
// within seconds), and doctor fails those checks.
func TestOldRunscIsRefusedByTheAttestation(t *testing.T) {
	needEngine(t)
	e := needSecondEngine(t)
	t.Parallel()
	// Several runs: a runner that forked before its hello once lost its
	// stdout under runsc in about half of them.
	for i := 0; i < 4; i++ {
		start := time.Now()
		r := tool(t, e.env(), "", "run", "--context", e.context, "--runtime", oldRunsc, "--image", refImage, "--timeout", refusedTimeout, "--code", spin)
		took := time.Since(start)
		t.Logf("%s: exit %d in %s: %s", oldRunsc, r.code, took.Round(time.Millisecond), strings.TrimSpace(r.stderr))
		assert.Check(t, is.Equal(r.code, 3), r.stderr)
		assert.Check(t, is.Equal(r.res.Verdict, "sandbox_failure"))
		assert.Check(t, !r.res.Sandboxed)
		assert.Check(t, is.Contains(r.stderr, "the container does not enforce the policy: "))
		assert.Check(t, is.Contains(r.stderr, "the program was never sent"))
		assert.Check(t, took < refusedWithin, "took %s", took)
		assert.Check(t, r.res.Result == nil || string(r.res.Result) == "null", "the program's result is withheld")
		assert.Check(t, is.Len(labelled(t, e, "="+r.res.RunID), 0))
	}

	d := tool(t, e.env(), "", "doctor", "--context", e.context, "--runtime", oldRunsc, "--image", refImage)
	t.Logf("doctor --runtime %s:\n%s", oldRunsc, d.stdout)
	assert.Check(t, is.Equal(d.code, 1))
	assert.Check(t, is.Contains(d.stdout, "FAIL"))
}
