package tests

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/poll"
)

// startRun starts `run` with a long-running program under a known name and
// waits until the engine lists its container as running.
// randomHex is 16 random hex digits, as the tool's run ids are.
// gcLock is the file whose lock a test holds while it runs gc on the
// machine's engine, or leaves a container for gc to find: a second copy
// of the suite on the same engine (or any program of this machine's
// tests) would otherwise remove what this one's gc must find, as a killed
// run's leftover is anyone's gc's to remove.
var gcLock = filepath.Join(os.TempDir(), "synapse-isolation-tests-gc.lock")

// holdGC takes gcLock until the test ends.
func holdGC(t *testing.T) {
	t.Helper()
	f, err := os.OpenFile(gcLock, os.O_CREATE|os.O_RDWR, 0o600)
	assert.NilError(t, err)
	assert.NilError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_EX))
	t.Cleanup(func() { f.Close() }) // closing the last descriptor unlocks
}

func randomHex() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func startRun(t *testing.T, name string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(toolBin, "run", "--image", refImage, "--timeout", "60s", "--name", name, "--code", "while True:\n  pass")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	assert.NilError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = exec.Command("docker", "rm", "-f", name).Run()
	})
	poll.WaitOn(t, func(poll.LogT) poll.Result {
		out, _ := exec.Command("docker", "ps", "--quiet", "--filter", "name=^/?"+name+"$", "--filter", "status=running").Output()
		if strings.TrimSpace(string(out)) != "" {
			return poll.Success()
		}
		return poll.Continue("container %s not running yet", name)
	}, poll.WithTimeout(20*time.Second), poll.WithDelay(50*time.Millisecond))
	waitBusy(t, name)
	return cmd, &stdout
}

// waitBusy waits until the container's program runs: a running container
// may still be at its hello, and a supervisor killed then sends no
// request, so the runner ends on its own. The program spins, so its
// cgroup's CPU time grows.
func waitBusy(t *testing.T, name string) {
	t.Helper()
	out, err := exec.Command("docker", "inspect", "--format", "{{.Id}}", name).Output()
	assert.NilError(t, err)
	id := strings.TrimSpace(string(out))
	paths := []string{
		"/sys/fs/cgroup/cpuacct/docker/" + id + "/cpuacct.usage",       // v1, cgroupfs: nanoseconds
		"/sys/fs/cgroup/system.slice/docker-" + id + ".scope/cpu.stat", // v2, systemd: usage_usec
		"/sys/fs/cgroup/docker/" + id + "/cpu.stat",                    // v2, cgroupfs
	}
	poll.WaitOn(t, func(poll.LogT) poll.Result {
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			f := strings.Fields(string(b))
			var ns int64
			if len(f) == 1 {
				ns, _ = strconv.ParseInt(f[0], 10, 64)
			} else if len(f) >= 2 && f[0] == "usage_usec" {
				us, _ := strconv.ParseInt(f[1], 10, 64)
				ns = us * 1000
			}
			if ns > int64(300*time.Millisecond) {
				return poll.Success()
			}
			return poll.Continue("container %s used %s of CPU", name, time.Duration(ns))
		}
		return poll.Error(fmt.Errorf("no cgroup CPU accounting found for container %s at %v", name, paths))
	}, poll.WithTimeout(20*time.Second), poll.WithDelay(50*time.Millisecond))
}

func TestSignalsRemoveContainer(t *testing.T) {
	needEngine(t)
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		name := "synapse-iso-" + randomHex()
		cmd, stdout := startRun(t, name)
		assert.NilError(t, cmd.Process.Signal(tc.sig))
		err := cmd.Wait()
		var ee *exec.ExitError
		assert.Assert(t, err != nil && errors.As(err, &ee), "%v", err)
		assert.Check(t, is.Equal(ee.ExitCode(), tc.code), tc.sig.String())
		assert.Check(t, is.Contains(stdout.String(), `"verdict":"interrupted"`))
		assertGone(t, name)
	}
}

// killWithReapers SIGKILLs a supervisor and, first, the reapers it
// started (its children whose argv[0] is synapse-isolation-reaper), which
// would otherwise remove its containers on their own: what is left then
// is gc's to find.
func killWithReapers(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	assert.NilError(t, err)
	reapers := 0
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		pid, _ := strconv.Atoi(strings.Fields(s)[0])
		argv, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if len(f) > 1 && f[1] == strconv.Itoa(cmd.Process.Pid) && strings.HasPrefix(string(argv), "synapse-isolation-reaper\x00") {
			assert.NilError(t, syscall.Kill(pid, syscall.SIGKILL))
			reapers++
		}
	}
	assert.Assert(t, reapers > 0, "no reaper found for pid %d", cmd.Process.Pid)
	assert.NilError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
}

// TestGCRemovesLeftoverOfKilledRun SIGKILLs a run mid-flight, and its
// reaper, so neither can clean up, and proves that a plain gc on this host removes what it left at
// once: the owner label names a supervisor that no longer runs. Not
// parallel: other tests' supervisors must be alive while it runs gc.
func TestGCRemovesLeftoverOfKilledRun(t *testing.T) {
	needEngine(t)
	holdGC(t)
	name := killedRun(t)
	time.Sleep(500 * time.Millisecond)
	out, err := exec.Command("docker", "ps", "--quiet", "--filter", "name=^/?"+name+"$").Output()
	assert.NilError(t, err)
	assert.Assert(t, strings.TrimSpace(string(out)) != "", "the killed run's container should still be running")

	// Its deadline is a minute away, but its supervisor is gone.
	r := tool(t, nil, "", "gc", "--dry-run")
	assert.Equal(t, r.code, 0, r.stderr)
	assert.Check(t, is.Contains(r.stdout, "would remove "+name))
	assert.Check(t, is.Contains(r.stdout, "owner gone"))
	out, _ = exec.Command("docker", "ps", "--quiet", "--filter", "name=^/?"+name+"$").Output()
	assert.Check(t, strings.TrimSpace(string(out)) != "", "dry run removed it")

	r = tool(t, nil, "", "gc")
	assert.Equal(t, r.code, 0, r.stderr)
	assert.Check(t, is.Contains(r.stdout, "removed "+name))
	assertGone(t, name)
}
