package tests

import (
	"encoding/json"
	"fmt"
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
)

// cpuMS is a result's cpu_ms, which must be there.
func cpuMS(t *testing.T, r toolResult) int64 {
	t.Helper()
	assert.Assert(t, r.res.Usage.CPUMS != nil, "no cpu_ms: %s %s", r.stdout, r.stderr)
	return *r.res.Usage.CPUMS
}

// TestUsageCPUOfABusyProgram: a Python program busy for 1 s of its own CPU
// time (time.process_time, its own count) reports cpu_ms within 10% of it.
func TestUsageCPUOfABusyProgram(t *testing.T) {
	needEngine(t)
	t.Parallel()
	r := py(t, nil, "import time\nwhile time.process_time() < 1.0:\n    pass\nprint(time.process_time())")
	assert.Equal(t, r.code, 0, r.stderr)
	own, err := strconv.ParseFloat(strings.TrimSpace(r.res.Output), 64)
	assert.NilError(t, err)
	got := float64(cpuMS(t, r))
	t.Logf("cpu_ms %v, the program's own process_time %.0f ms", got, own*1000)
	assert.Check(t, got >= 0.9*own*1000 && got <= 1.1*own*1000, "cpu_ms %v against %.0f ms", got, own*1000)
}

// TestUsageSleepIsNotCPU: a second of sleep is not CPU time. What a
// sleeping program is charged is its interpreter's start, which Python
// reports itself (time.process_time as the program starts: 46 to 98 ms
// here), and under 50 ms more: the runner's start of it and its watch.
func TestUsageSleepIsNotCPU(t *testing.T) {
	needEngine(t)
	t.Parallel()
	r := py(t, nil, "import time\nstart = time.process_time()\ntime.sleep(1)\nprint(round(start * 1000))")
	assert.Equal(t, r.code, 0, r.stderr)
	start, err := strconv.ParseInt(strings.TrimSpace(r.res.Output), 10, 64)
	assert.NilError(t, err)
	t.Logf("cpu_ms %d for a 1 s sleep, of which Python's start-up %d ms", cpuMS(t, r), start)
	assert.Check(t, cpuMS(t, r)-start < 50, "cpu_ms %d, start-up %d ms", cpuMS(t, r), start)
}

// TestUsageForkedWorkersShareOneCPU: four processes busy for 2 s of wall
// time under the 1-CPU quota use about 2,000 ms of CPU, not 8,000: every
// descendant is counted, and the quota holds.
func TestUsageForkedWorkersShareOneCPU(t *testing.T) {
	needEngine(t)
	t.Parallel()
	r := py(t, nil, busyWorkers(2))
	assert.Equal(t, r.code, 0, r.stderr)
	got := cpuMS(t, r)
	t.Logf("cpu_ms %d for four busy processes over 2 s", got)
	assert.Check(t, got >= 1800 && got <= 2300, "cpu_ms %d", got)
}

// TestUsageMemoryPeak: a 200 MiB allocation, written, shows in the peak,
// which stays under the limit.
func TestUsageMemoryPeak(t *testing.T) {
	needEngine(t)
	t.Parallel()
	r := py(t, nil, "b = b'x' * (200 << 20)\nprint(len(b))")
	assert.Equal(t, r.code, 0, r.stderr)
	assert.Assert(t, r.res.Usage.MemoryPeakBytes != nil, r.stdout)
	peak := *r.res.Usage.MemoryPeakBytes
	t.Logf("memory_peak_bytes %d (%.1f MiB)", peak, float64(peak)/(1<<20))
	assert.Check(t, peak >= 200<<20 && peak < 512<<20, "peak %d", peak)

	// Starlark mode reports both too.
	r = tool(t, nil, "", "run", "--image", refImage, "--code", "n = 0\nfor i in range(200000):\n  n += i\nn")
	assert.Equal(t, r.code, 0, r.stderr)
	assert.Check(t, r.res.Usage.CPUMS != nil && r.res.Usage.MemoryPeakBytes != nil && *r.res.Usage.MemoryPeakBytes > 0, r.stdout)
}

// TestCPUTimeLimit: --cpu-time 1s stops an endless loop, and one that forks
// eight spinning processes, at 1.0 to 1.1 s of CPU, with its own verdict
// and a timeout's exit status; in Starlark mode too. A program that sleeps
// 3 s under it ends ok.
func TestCPUTimeLimit(t *testing.T) {
	needEngine(t)
	t.Parallel()
	for name, src := range map[string]string{
		"loop": "while True:\n    pass",
		"fork": "import os\nfor _ in range(3):\n    os.fork()\nwhile True:\n    pass",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			r := py(t, nil, src, "--cpu-time", "1s", "--timeout", "10s")
			assert.Equal(t, r.code, 124, r.stderr)
			assert.Equal(t, r.res.Verdict, "cpu_timeout")
			got := cpuMS(t, r)
			t.Logf("%s: stopped at cpu_ms %d, %s after the start", name, got, time.Since(start).Round(time.Millisecond))
			assert.Check(t, got >= 1000 && got <= 1100, "cpu_ms %d", got)
			assert.Check(t, is.Contains(r.stderr, "cpu timeout: the runner stopped the program: CPU-time limit of 1s reached: "))
		})
	}
	t.Run("starlark", func(t *testing.T) {
		t.Parallel()
		r := tool(t, nil, "", "run", "--image", refImage, "--cpu-time", "1s", "--code", "while True:\n  pass")
		assert.Equal(t, r.code, 124, r.stderr)
		assert.Equal(t, r.res.Verdict, "cpu_timeout")
		got := cpuMS(t, r)
		assert.Check(t, got >= 1000 && got <= 1100, "cpu_ms %d", got)
		assertGone(t, r.res.Container)
	})
	t.Run("sleeper", func(t *testing.T) {
		t.Parallel()
		r := py(t, nil, "import time\ntime.sleep(3)\nprint('awake')", "--cpu-time", "1s", "--timeout", "10s")
		assert.Equal(t, r.code, 0, r.stderr)
		assert.Equal(t, r.res.Output, "awake\n")
	})
}

// TestUsageInBatch: the warm pool's results carry usage and the CPU limit,
// and the summary totals them.
func TestUsageInBatch(t *testing.T) {
	needEngine(t)
	t.Parallel()
	in := `{"id": 1, "source": "n = 0\nfor i in range(300000):\n  n += i\nn"}` + "\n" +
		`{"id": 2, "source": "while True:\n  pass"}` + "\n"
	r := tool(t, nil, in, "batch", "--image", refImage, "--cpu-time", "1s", "--ordered")
	assert.Check(t, is.Equal(r.code, 124), r.stderr)
	rs := parseBatch(t, r.stdout)
	assert.Assert(t, is.Len(rs, 2))
	assert.Check(t, is.Equal(rs[0].Verdict, "ok"))
	assert.Check(t, is.Equal(rs[1].Verdict, "cpu_timeout"))
	var total int64
	for _, res := range rs {
		assert.Assert(t, res.Usage.CPUMS != nil && res.Usage.MemoryPeakBytes != nil, "%+v", res)
		total += *res.Usage.CPUMS
	}
	assert.Check(t, *rs[1].Usage.CPUMS >= 1000 && *rs[1].Usage.CPUMS <= 1100, "cpu_ms %d", *rs[1].Usage.CPUMS)
	assert.Check(t, is.Contains(r.stderr, fmt.Sprintf("; cpu_ms total %d; memory_peak_bytes max ", total)))
}

// TestUsageAgreesWithTheHostCgroup: the host reads the container's own
// cgroup files while the program sleeps after 1.5 s of work; the cpu_ms
// and memory peak the run reports agree with them within 10%. (The host's
// count includes the container's start and the runner's selfcheck, before
// the program, so it is the larger.)
func TestUsageAgreesWithTheHostCgroup(t *testing.T) {
	needEngine(t)
	t.Parallel()
	name := fmt.Sprintf("synapse-usage-%d", time.Now().UnixNano())
	src := "import time\nb = b'x' * (100 << 20)\nwhile time.process_time() < 1.5:\n    pass\ntime.sleep(3)"
	cmd := exec.Command(toolBin, "run", "--image", pythonImage, "--name", name, "--timeout", "20s", "--code", src, "--", "python3", "-")
	var stdout strings.Builder
	cmd.Stdout = &stdout
	assert.NilError(t, cmd.Start())
	var cpuFile, peakFile string
	poll.WaitOn(t, func(poll.LogT) poll.Result {
		out, err := exec.Command("docker", "inspect", "--format", "{{.Id}}", name).Output()
		if err != nil {
			return poll.Continue("not started")
		}
		cpuFile, peakFile = hostCgroupFiles(strings.TrimSpace(string(out)))
		if cpuFile == "" {
			return poll.Continue("no cgroup files found")
		}
		return poll.Success()
	}, poll.WithTimeout(10*time.Second), poll.WithDelay(50*time.Millisecond))
	// Sample once the work is done, while the program sleeps.
	var hostCPU, hostPeak int64
	poll.WaitOn(t, func(poll.LogT) poll.Result {
		hostCPU, hostPeak = readInt(t, cpuFile)/1e6, readInt(t, peakFile)
		if hostCPU >= 1500 {
			return poll.Success()
		}
		return poll.Continue("%d ms so far", hostCPU)
	}, poll.WithTimeout(15*time.Second), poll.WithDelay(100*time.Millisecond))
	time.Sleep(500 * time.Millisecond) // into the sleep
	hostCPU, hostPeak = readInt(t, cpuFile)/1e6, readInt(t, peakFile)
	assert.NilError(t, cmd.Wait(), stdout.String())
	var res runJSON
	assert.NilError(t, json.Unmarshal([]byte(stdout.String()), &res))
	assert.Assert(t, res.Usage.CPUMS != nil && res.Usage.MemoryPeakBytes != nil, stdout.String())
	cpu, peak := *res.Usage.CPUMS, *res.Usage.MemoryPeakBytes
	t.Logf("cpu_ms %d, host cgroup %d ms (%s); memory_peak_bytes %d, host %d (%s)", cpu, hostCPU, cpuFile, peak, hostPeak, peakFile)
	assert.Check(t, cpu <= hostCPU && float64(cpu) >= 0.9*float64(hostCPU), "cpu_ms %d, host %d", cpu, hostCPU)
	assert.Check(t, peak >= hostPeak && float64(peak) <= 1.1*float64(hostPeak), "peak %d, host %d", peak, hostPeak)
}

// hostCgroupFiles finds a container's CPU counter and memory peak on the
// host: cgroup v1 (cgroupfs or systemd driver) or v2.
func hostCgroupFiles(id string) (cpu, peak string) {
	for _, pattern := range []string{
		"/sys/fs/cgroup/cpuacct/*/" + id + "/cpuacct.usage",
		"/sys/fs/cgroup/cpuacct/*/*" + id + "*/cpuacct.usage",
		"/sys/fs/cgroup/cpu,cpuacct/*/" + id + "/cpuacct.usage",
	} {
		if m, _ := filepath.Glob(pattern); len(m) == 1 {
			dir := filepath.Base(filepath.Dir(m[0]))
			parent := filepath.Base(filepath.Dir(filepath.Dir(m[0])))
			return m[0], filepath.Join("/sys/fs/cgroup/memory", parent, dir, "memory.max_usage_in_bytes")
		}
	}
	if m, _ := filepath.Glob("/sys/fs/cgroup/*/*" + id + "*/cpu.stat"); len(m) == 1 {
		return m[0], filepath.Join(filepath.Dir(m[0]), "memory.peak")
	}
	return "", ""
}

// readInt reads a number from a cgroup file: v1's single value, or v2
// cpu.stat's usage_usec in ns (as v1 counts).
func readInt(t *testing.T, path string) int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	assert.NilError(t, err)
	s := strings.TrimSpace(string(b))
	if v, ok := strings.CutPrefix(s, "usage_usec "); ok {
		n, err := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
		assert.NilError(t, err)
		return n * 1000
	}
	n, err := strconv.ParseInt(s, 10, 64)
	assert.NilError(t, err)
	return n
}

// busyWorkers is a Python program whose four forked processes spin for
// the seconds given, then prints "done".
func busyWorkers(seconds int) string {
	return fmt.Sprintf(`import os, time
end = time.time() + %d
pids = []
for _ in range(4):
    p = os.fork()
    if p == 0:
        while time.time() < end:
            pass
        os._exit(0)
    pids.append(p)
for p in pids:
    os.waitpid(p, 0)
print("done")`, seconds)
}
