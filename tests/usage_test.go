package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// cpuMS is a result's cpu_ms, which must be there.
func cpuMS(t *testing.T, r toolResult) int64 {
	t.Helper()
	assert.Assert(t, r.res.Usage.CPUMS != nil, "no cpu_ms: %s %s", r.stdout, r.stderr)
	return *r.res.Usage.CPUMS
}

// cpuBoundTimeout is the deadline of a run that needs a second or two of
// CPU: with a second copy of the suite alongside on two cores, such a run
// took over 10 s; a minute leaves ten times what a quiet machine takes
// (under 6 s, start included).
const cpuBoundTimeout = "60s"

// TestUsageCPUOfABusyProgram: a Python program busy for 1 s of its own CPU
// time (time.process_time, its own count) reports at least that: the
// cgroup counted the whole process, forked after the run's counter was
// read (a bound by construction). Above it by at most 150 ms: the
// runner's own share while it watched and the interpreter's exit after
// its last line, a few ms here; the margin is for a loaded machine, never
// the counters' grain.
func TestUsageCPUOfABusyProgram(t *testing.T) {
	needEngine(t)
	t.Parallel()
	r := py(t, nil, "import time\nwhile time.process_time() < 1.0:\n    pass\nprint(time.process_time_ns())", "--timeout", cpuBoundTimeout)
	assert.Equal(t, r.code, 0, r.stderr)
	own, err := strconv.ParseInt(strings.TrimSpace(r.res.Output), 10, 64)
	assert.NilError(t, err)
	got := cpuMS(t, r)
	t.Logf("cpu_ms %d, the program's own process_time %d ms", got, own/1e6)
	assert.Check(t, got >= own/1e6 && got <= own/1e6+150, "cpu_ms %d against %d ms", got, own/1e6)
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

// TestUsageForkedWorkersShareOneCPU: four forked processes, each busy
// until its own CPU clock reads 0.5 s, are all counted (cpu_ms at least
// their 2,000 ms: the cgroup holds every descendant), and the quota holds:
// 2 s of CPU under 1 CPU take at least 1.9 s of wall time, the program's
// own from its first fork to its last reap (CFS lets a window use at most
// its length plus one 100 ms period), where two cores unbounded would
// take 1 s. Both bounds hold by construction, under any load.
func TestUsageForkedWorkersShareOneCPU(t *testing.T) {
	needEngine(t)
	t.Parallel()
	src := `import os, time
start = time.monotonic()
pids = []
for _ in range(4):
    p = os.fork()
    if p == 0:
        while time.process_time() < 0.5:
            pass
        os._exit(0)
    pids.append(p)
for p in pids:
    os.waitpid(p, 0)
print(round((time.monotonic() - start) * 1000))`
	r := py(t, nil, src, "--timeout", cpuBoundTimeout)
	assert.Equal(t, r.code, 0, r.stderr)
	wall, err := strconv.ParseInt(strings.TrimSpace(r.res.Output), 10, 64)
	assert.NilError(t, err, r.res.Output)
	got := cpuMS(t, r)
	t.Logf("cpu_ms %d for four processes of 500 ms each, in %d ms of wall time", got, wall)
	assert.Check(t, got >= 2000, "cpu_ms %d", got)
	assert.Check(t, wall >= 1900, "2 s of CPU in %d ms: the quota did not hold", wall)
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
			r := py(t, nil, src, "--cpu-time", "1s", "--timeout", cpuBoundTimeout)
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
		r := tool(t, nil, "", "run", "--image", refImage, "--cpu-time", "1s", "--timeout", cpuBoundTimeout, "--code", "while True:\n  pass")
		assert.Equal(t, r.code, 124, r.stderr)
		assert.Equal(t, r.res.Verdict, "cpu_timeout")
		got := cpuMS(t, r)
		assert.Check(t, got >= 1000 && got <= 1100, "cpu_ms %d", got)
		assertGone(t, r.res.Container)
	})
	t.Run("sleeper", func(t *testing.T) {
		t.Parallel()
		r := py(t, nil, "import time\ntime.sleep(3)\nprint('awake')", "--cpu-time", "1s", "--timeout", cpuBoundTimeout)
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
	r := tool(t, nil, in, "batch", "--image", refImage, "--cpu-time", "1s", "--timeout", cpuBoundTimeout, "--ordered")
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
	return counterValue(t, b)
}

// counterValue is a cgroup counter file's value in nanoseconds (v1's
// cpuacct.usage, or cpu.stat's usage_usec) or bytes.
func counterValue(t *testing.T, b []byte) int64 {
	t.Helper()
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
