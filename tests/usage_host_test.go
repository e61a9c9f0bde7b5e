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
	"gotest.tools/v3/poll"
)

// TestUsageAgreesWithTheHostCgroup: the run's cpu_ms and memory peak are
// the container's own cgroup counters, held against the host's view of the
// same cgroup by bounds that hold by construction, whatever the machine's
// load and the counters' grain:
//
//   - The tool's CPU time is C(r) - C(s), the container's counter when the
//     program and its processes were reaped (r) less its value when the
//     request arrived (s). The host reads H0 once the interpreter exists
//     (so after s: C(s) <= H0) and Hmid while the program sleeps (so before
//     r: Hmid <= C(r)); hence cpu >= Hmid - H0.
//   - The program prints its own CPU clock as its last act, after its
//     sleep; the cgroup counted all of that process (it was forked after
//     s), so cpu >= that figure.
//   - Counters are charged to every ancestor cgroup too, and an ancestor
//     keeps them when the container's cgroup goes, so the parent's growth
//     from before the run to after it bounds the run's from above (other
//     containers only add to it).
//   - The peak only grows, and the runner reads it last: peak >= the host's
//     reading while the program sleeps; it is at most the parent's peak,
//     read after the run.
//
// Never a reading taken before the run ends held as an upper bound against
// one taken after: that failed by a millisecond once (1557 ms against
// 1556).
func TestUsageAgreesWithTheHostCgroup(t *testing.T) {
	needEngine(t)
	t.Parallel()
	parentCPU, parentPeak := hostParentCounters(t)
	name := fmt.Sprintf("synapse-usage-%d", time.Now().UnixNano())
	src := "import time\nb = b'x' * (100 << 20)\nwhile time.process_time() < 1.5:\n    pass\ntime.sleep(3)\nprint(time.process_time_ns())"
	cmd := exec.Command(toolBin, "run", "--image", pythonImage, "--name", name, "--timeout", "30s", "--code", src, "--", "python3", "-")
	var stdout strings.Builder
	cmd.Stdout = &stdout
	assert.NilError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
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
	}, poll.WithTimeout(20*time.Second), poll.WithDelay(20*time.Millisecond))
	procs := filepath.Join(filepath.Dir(cpuFile), "cgroup.procs")
	poll.WaitOn(t, func(poll.LogT) poll.Result {
		if interpreterIn(procs) {
			return poll.Success()
		}
		return poll.Continue("no python3 in %s yet", procs)
	}, poll.WithTimeout(20*time.Second), poll.WithDelay(5*time.Millisecond))
	h0 := readInt(t, cpuFile)

	// Once the work is done, while the program sleeps: the counter has
	// grown by most of the work and then stopped (under 5 ms in 100 ms).
	// Not "grown by the whole 1.5 s since H0": the interpreter may have
	// spent some of it before H0 was read, and the counter then never
	// grows that much before the program ends.
	last := h0
	poll.WaitOn(t, func(poll.LogT) poll.Result {
		b, err := os.ReadFile(cpuFile)
		if err != nil {
			return poll.Error(fmt.Errorf("the program ended before the host's reading: %w", err))
		}
		n := counterValue(t, b)
		grew := n - last
		last = n
		if n-h0 < 1000e6 || grew >= 5e6 {
			return poll.Continue("%d ms so far, %d ms in the last 100 ms", (n-h0)/1e6, grew/1e6)
		}
		return poll.Success()
	}, poll.WithTimeout(20*time.Second), poll.WithDelay(100*time.Millisecond))
	time.Sleep(200 * time.Millisecond) // into the sleep
	hMid, peakMid := readInt(t, cpuFile), readInt(t, peakFile)
	// Hmid <= C(r) needs the program alive after the reading.
	assert.Assert(t, interpreterIn(procs), "the program ended before the host's reading; the bounds need it asleep")

	assert.NilError(t, cmd.Wait(), stdout.String())
	var res runJSON
	assert.NilError(t, json.Unmarshal([]byte(stdout.String()), &res))
	assert.Assert(t, res.Usage.CPUMS != nil && res.Usage.MemoryPeakBytes != nil, stdout.String())
	own, err := strconv.ParseInt(strings.TrimSpace(res.Output), 10, 64)
	assert.NilError(t, err, res.Output)
	parentFile := filepath.Join(filepath.Dir(filepath.Dir(cpuFile)), filepath.Base(cpuFile))
	before, ok := parentCPU[parentFile]
	assert.Assert(t, ok, "no reading of %s before the run", parentFile)
	parentGrew := readInt(t, parentFile) - before
	peakParent := filepath.Join(filepath.Dir(filepath.Dir(peakFile)), filepath.Base(peakFile))
	_, ok = parentPeak[peakParent]
	assert.Assert(t, ok, "no parent peak %s", peakParent)

	cpu, peak := *res.Usage.CPUMS, *res.Usage.MemoryPeakBytes
	t.Logf("cpu_ms %d; host: %d ms from the interpreter's start to the sleep, the parent grew %d ms; the program's own clock %d ms",
		cpu, (hMid-h0)/1e6, parentGrew/1e6, own/1e6)
	t.Logf("memory_peak_bytes %d; host while asleep %d (%s)", peak, peakMid, peakFile)
	// cpu_ms is the tool's microseconds cut to milliseconds: compare
	// like with like, each figure cut the same way.
	assert.Check(t, cpu >= (hMid-h0)/1e6, "cpu_ms %d, below the host's %d ms", cpu, (hMid-h0)/1e6)
	assert.Check(t, cpu >= own/1e6, "cpu_ms %d, below the program's own %d ms", cpu, own/1e6)
	assert.Check(t, cpu*1e6 <= parentGrew, "cpu_ms %d, above the parent's growth %d ns", cpu, parentGrew)
	assert.Check(t, peak >= peakMid && peak >= 100<<20, "peak %d, host %d", peak, peakMid)
	assert.Check(t, peak <= readInt(t, peakParent), "peak %d above the parent's", peak)
}

// hostParentCounters reads, before a container exists, the CPU counter
// and memory peak of every cgroup one level below each hierarchy's root:
// the engine's cgroup parent is among them (docker, system.slice), and
// each counts the containers below it, the removed ones included.
func hostParentCounters(t *testing.T) (cpu, peak map[string]int64) {
	t.Helper()
	cpu, peak = map[string]int64{}, map[string]int64{}
	cpuPatterns := []string{"/sys/fs/cgroup/cpuacct/*/cpuacct.usage", "/sys/fs/cgroup/cpu,cpuacct/*/cpuacct.usage"}
	peakPatterns := []string{"/sys/fs/cgroup/memory/*/memory.max_usage_in_bytes"}
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil { // v2: one hierarchy
		cpuPatterns, peakPatterns = []string{"/sys/fs/cgroup/*/cpu.stat"}, []string{"/sys/fs/cgroup/*/memory.peak"}
	}
	for _, pattern := range cpuPatterns {
		m, _ := filepath.Glob(pattern)
		for _, f := range m {
			cpu[f] = readInt(t, f)
		}
	}
	for _, pattern := range peakPatterns {
		m, _ := filepath.Glob(pattern)
		for _, f := range m {
			peak[f] = readInt(t, f)
		}
	}
	return cpu, peak
}

// interpreterIn reports whether a process of the cgroup whose
// cgroup.procs is given runs python3 (the runner's own processes run the
// runner's binary).
func interpreterIn(procs string) bool {
	b, err := os.ReadFile(procs)
	if err != nil {
		return false
	}
	for _, pid := range strings.Fields(string(b)) {
		comm, err := os.ReadFile("/proc/" + pid + "/comm")
		if err == nil && strings.HasPrefix(string(comm), "python3") {
			return true
		}
	}
	return false
}
