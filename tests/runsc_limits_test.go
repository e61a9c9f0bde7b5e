package tests

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/poll"

	"github.com/synapse-lang/synapse-isolation/limits"
)

func TestRunscOutputCap(t *testing.T) {
	e := needGVisor(t)
	t.Parallel()
	assertOutputCapped(t, runscStarlark(t, e, printMany))
}

// TestRunscOOM: 512 MiB under a 128 MiB limit is oom, exit 137, for a
// Starlark string and a Python one.
func TestRunscOOM(t *testing.T) {
	e := needGVisor(t)
	t.Parallel()
	for name, run := range map[string]func() toolResult{
		"starlark": func() toolResult {
			return runscStarlark(t, e, "x = 'x' * (512 << 20)", "--memory", "128m", "--timeout", "30s")
		},
		"python": func() toolResult {
			return runscPy(t, e, "x = b'x' * (512 << 20)\nprint(len(x))", "--memory", "128m", "--timeout", "30s")
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			r := run()
			t.Logf("%s in %s: %s", r.res.Verdict, time.Since(start).Round(time.Millisecond), strings.TrimSpace(r.stderr))
			assert.Check(t, is.Equal(r.code, 137), r.stdout+r.stderr)
			assert.Check(t, is.Equal(r.res.Verdict, "oom"))
			// The runner's guard stops it first (memory exhausted) unless
			// a loaded host schedules the guard's poll late and the
			// host's cgroup kills the whole sandbox before it looks
			// (the daemon's oom event): oom, exit 137 either way.
			assert.Check(t, strings.Contains(r.stderr, "memory exhausted") || strings.Contains(r.stderr, "daemon oom event"), r.stderr)
		})
	}
}

// TestRunscTimeoutLeavesNoContainer: a Starlark spin and an exec child
// asleep end at the timeout, exit 124, their output discarded, their
// container gone from the second engine (underRunsc checks).
func TestRunscTimeoutLeavesNoContainer(t *testing.T) {
	e := needGVisor(t)
	t.Parallel()
	imageOnSecond(t, e, probeImage)
	for name, args := range map[string][]string{
		"starlark spin": {"--image", refImage, "--timeout", "3s", "--code", "while True:\n  pass"},
		"exec sleep":    {"--image", probeImage, "--timeout", "3s", "--code", "sleep", "--", "/probe"},
	} {
		start := time.Now()
		r := underRunsc(t, e, nil, "", "run", args...)
		took := time.Since(start)
		assert.Check(t, is.Equal(r.code, 124), "%s: %s", name, r.stderr)
		assert.Check(t, is.Equal(r.res.Verdict, "timeout"), name)
		assert.Check(t, is.Equal(r.res.Output, ""), "%s: output is discarded on timeout", name)
		assert.Check(t, took < timedOutWithin, "%s took %s", name, took)
		assert.Check(t, r.res.RunID != "", "%s: no run id", name)
	}
}

// TestRunscCPUTimeLimit: --cpu-time 1s stops a Starlark spin and a
// Python one (cpu_timeout, exit 124), by gVisor's count at most 1.2 s of
// the host's CPU; a sleeper ends ok.
func TestRunscCPUTimeLimit(t *testing.T) {
	e := needGVisor(t)
	t.Parallel()
	for name, run := range map[string]func() toolResult{
		"starlark": func() toolResult {
			return runscStarlark(t, e, "while True:\n  pass", "--cpu-time", "1s", "--timeout", "10s")
		},
		"python": func() toolResult {
			return runscPy(t, e, "while True:\n    pass", "--cpu-time", "1s", "--timeout", "10s")
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := run()
			assert.Check(t, is.Equal(r.code, 124), r.stdout+r.stderr)
			assert.Check(t, is.Equal(r.res.Verdict, "cpu_timeout"))
			if assert.Check(t, r.res.Usage.CPUMS != nil, r.stdout) {
				t.Logf("stopped at cpu_ms %d", *r.res.Usage.CPUMS)
				// gVisor's CPU counter, which the runner stops on, runs
				// ahead of the host's quota (the host cuts the claim to
				// it): the stop may come early, never late.
				assert.Check(t, *r.res.Usage.CPUMS >= 700 && *r.res.Usage.CPUMS <= 1200, "cpu_ms %d", *r.res.Usage.CPUMS)
			}
		})
	}
	t.Run("sleeper", func(t *testing.T) {
		t.Parallel()
		r := runscPy(t, e, "import time\ntime.sleep(3)\nprint('awake')", "--cpu-time", "1s", "--timeout", "10s")
		assert.Check(t, is.Equal(r.code, 0), r.stdout+r.stderr)
		assert.Check(t, is.Equal(r.res.Output, "awake\n"))
	})
}

// TestRunscUsage: a busy second of Python reports its CPU time (gVisor's
// cpuacct.usage); the memory peak, which gVisor's cgroupfs does not keep,
// is the program's own maximum resident set: at least the 100 MiB it
// holds, at most the limit.
func TestRunscUsage(t *testing.T) {
	e := needGVisor(t)
	t.Parallel()
	r := runscPy(t, e, "import time\nb = b'x' * (100 << 20)\nwhile time.process_time() < 1.0:\n    pass\nprint(time.process_time())",
		"--memory", "256m")
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	own, err := strconv.ParseFloat(strings.TrimSpace(r.res.Output), 64)
	assert.NilError(t, err)
	assert.Assert(t, r.res.Usage.CPUMS != nil, r.stdout)
	got := float64(*r.res.Usage.CPUMS)
	t.Logf("cpu_ms %v, the program's own process_time %.0f ms; %s", got, own*1000, r.stdout)
	assert.Check(t, got >= 0.9*own*1000 && got <= 1.2*own*1000, "cpu_ms %v against %.0f ms", got, own*1000)
	if assert.Check(t, r.res.Usage.MemoryPeakBytes != nil, r.stdout) {
		peak := *r.res.Usage.MemoryPeakBytes
		assert.Check(t, peak >= 100<<20 && peak <= 256<<20, "memory_peak_bytes %d", peak)
	}
}

// TestRunscHostCgroupAndOneCPU is not parallel: it measures CPU time. What
// gVisor hides inside, the host enforces on the sandbox's own cgroup: the
// memory limit with as much memory+swap, the host's task limit
// (limits.GVisorHostPIDs) and one CPU of quota, which four busy processes
// meet at about one CPU-second per second of wall time (on two cores
// without it, about two).
func TestRunscHostCgroupAndOneCPU(t *testing.T) {
	e := needGVisor(t)
	imageOnSecond(t, e, pythonImage)
	name := "synapse-runsc-cpu-" + randomHex()
	src := busyWorkers(8)
	cmd := exec.Command(toolBin, "run", "--context", e.context, "--runtime", currentRunsc, "--image", pythonImage, "--name", name,
		"--memory", "256m", "--timeout", "30s", "--code", src, "--", "python3", "-")
	cmd.Env = append(cmd.Environ(), e.env()...)
	var stdout strings.Builder
	cmd.Stdout = &stdout
	assert.NilError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	var id, cpuFile string
	poll.WaitOn(t, func(poll.LogT) poll.Result {
		out, err := e.docker("inspect", "--format", "{{.Id}}", name)
		if err != nil {
			return poll.Continue("not created")
		}
		id = strings.TrimSpace(string(out))
		if cpuFile, _ = hostCgroupFiles(id); cpuFile == "" {
			return poll.Continue("no host cgroup for %s", id)
		}
		return poll.Success()
	}, poll.WithTimeout(20*time.Second), poll.WithDelay(50*time.Millisecond))
	host := func(controller, file string) string {
		b, err := os.ReadFile(filepath.Join(hostCgroupDir(t, controller, id), file))
		assert.NilError(t, err)
		return strings.TrimSpace(string(b))
	}
	assert.Check(t, is.Equal(host("memory", "memory.limit_in_bytes"), strconv.Itoa(256<<20)))
	assert.Check(t, is.Equal(host("memory", "memory.memsw.limit_in_bytes"), strconv.Itoa(256<<20)), "no swap")
	assert.Check(t, is.Equal(host("pids", "pids.max"), strconv.Itoa(limits.GVisorHostPIDs)))
	quota := host("cpu", "cpu.cfs_quota_us") + " " + host("cpu", "cpu.cfs_period_us")
	assert.Check(t, is.Equal(quota, "100000 100000"))

	// Once the workers are busy, sample the host's count of the sandbox's
	// CPU time over 2 s.
	poll.WaitOn(t, func(poll.LogT) poll.Result {
		if readInt(t, cpuFile) > 2e9 {
			return poll.Success()
		}
		return poll.Continue("not busy yet")
	}, poll.WithTimeout(20*time.Second), poll.WithDelay(100*time.Millisecond))
	c0, t0 := readInt(t, cpuFile), time.Now()
	time.Sleep(2 * time.Second)
	c1, t1 := readInt(t, cpuFile), time.Now()
	rate := float64(c1-c0) / float64(t1.Sub(t0).Nanoseconds())
	t.Logf("four busy processes under runsc: %.2f CPU-s per s on the host's count (%s)", rate, cpuFile)
	assert.Check(t, rate < 1.3, "%.2f CPUs used", rate)
	// Only that they spun at all: a machine busy with other work gives
	// them less than their quota.
	assert.Check(t, rate > 0.1, "the workers did spin: %.2f CPUs", rate)

	assert.Check(t, cmd.Wait(), stdout.String())
	var res runJSON
	assert.NilError(t, json.Unmarshal([]byte(stdout.String()), &res), stdout.String())
	assert.Check(t, is.Equal(res.Verdict, "ok"))
	assert.Check(t, is.Equal(res.Output, "done\n"))
	assert.Check(t, is.Len(labelled(t, e, "="+res.RunID), 0))
}

// hostCgroupDir is a container's cgroup directory of one v1 controller on
// the host: below the engine's cgroup parent, which may itself sit deeper
// than the hierarchy's root (runsc places its memory cgroup below its own).
func hostCgroupDir(t *testing.T, controller, id string) string {
	t.Helper()
	for pattern := "/sys/fs/cgroup/" + controller + "/*/"; strings.Count(pattern, "*") <= 4; pattern += "*/" {
		if m, _ := filepath.Glob(pattern + id); len(m) == 1 {
			return m[0]
		}
	}
	t.Fatalf("no %s cgroup of %s on the host", controller, id)
	return ""
}
