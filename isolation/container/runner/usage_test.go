package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestUsageRecordedFiles: the CPU counter and the memory peak, v1 as a
// container here sees them (cpuacct.usage in ns), v2 in the kernel's
// format (cpu.stat's usage_usec, memory.peak).
func TestUsageRecordedFiles(t *testing.T) {
	for _, tc := range []struct {
		dir        string
		cpuMicros  int64
		peakBytes  int64
		wantV2File bool
	}{
		{"testdata/cgroup-v1", 83217, 11321344, false},
		{"testdata/cgroup-v2", 2718281, 70254592, true},
	} {
		cg := newCgroup(tc.dir)
		assert.Equal(t, cg.v2, tc.wantV2File)
		c, err := cg.openCPU()
		assert.NilError(t, err, tc.dir)
		got, err := c.micros()
		c.close()
		assert.NilError(t, err)
		assert.Equal(t, got, tc.cpuMicros, tc.dir)
		peak, err := cg.memoryPeak()
		assert.NilError(t, err)
		assert.Equal(t, peak, tc.peakBytes, tc.dir)
	}
	// No files: no counter, and a meter reports null, never zero.
	m := &meter{cg: newCgroup(t.TempDir())}
	m.begin()
	u := m.usage(nil)
	assert.Check(t, u.CPUMicros == nil && u.MemoryPeakBytes == nil, "%+v", u)
	var none *meter
	none.begin()
	assert.Check(t, none.usage(nil) == nil && none.over() == "")
}

// fakeCPU is a writable cgroup v1 CPU counter and memory peak.
func fakeCPU(t *testing.T) (dir string, set func(micros int64)) {
	dir = t.TempDir()
	assert.NilError(t, os.MkdirAll(filepath.Join(dir, "cpuacct"), 0o755))
	assert.NilError(t, os.MkdirAll(filepath.Join(dir, "memory"), 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "memory", "memory.max_usage_in_bytes"), []byte("12345678\n"), 0o644))
	set = func(micros int64) {
		// Fixed width, written in place, as the kernel's file changes
		// under one open descriptor.
		b := fmt.Appendf(nil, "%020d\n", micros*1000)
		assert.NilError(t, os.WriteFile(filepath.Join(dir, "cpuacct", "cpuacct.usage"), b, 0o644))
	}
	set(5_000_000)
	return dir, set
}

// TestGuardStopsAtTheCPULimit: the guard stops the program once the CPU
// time since begin reaches the limit, within a few polls, and says so;
// time used before begin (the runner's own start) does not count.
func TestGuardStopsAtTheCPULimit(t *testing.T) {
	dir, set := fakeCPU(t)
	cg := newCgroup(dir)
	g := &guard{cg: cg, cpu: &meter{cg: cg, limit: time.Second}}
	g.cpu.begin() // base 5 s
	var stops atomic.Int32
	done, finished := make(chan struct{}), make(chan struct{})
	go func() { g.watch(done, func() { stops.Add(1) }); close(finished) }()
	set(5_900_000) // 0.9 s used: below
	select {
	case <-finished:
		t.Fatal("stopped below the limit")
	case <-time.After(10 * guardEvery):
	}
	reached := time.Now()
	set(6_000_000)
	select {
	case <-finished:
	case <-time.After(5 * time.Second):
		t.Fatal("the guard did not stop the program at its CPU limit")
	}
	// Within polls, not seconds: the bound leaves a loaded machine (-race,
	// every package at once) room to schedule the guard late.
	assert.Check(t, time.Since(reached) < 100*guardEvery, "stopped %s after the limit", time.Since(reached))
	assert.Equal(t, stops.Load(), int32(1))
	why, cpu := g.stopped()
	assert.Equal(t, why, "")
	assert.Equal(t, cpu, "CPU-time limit of 1s reached: 1s used")
	u := g.cpu.usage(nil)
	assert.Equal(t, *u.CPUMicros, int64(1_000_000))
	assert.Equal(t, *u.MemoryPeakBytes, int64(12345678))
	close(done)

	// Without a limit the guard never stops for CPU.
	g = &guard{cg: cg, cpu: &meter{cg: cg}}
	g.cpu.begin()
	set(60_000_000)
	finished = make(chan struct{})
	go func() { g.watch(make(chan struct{}), func() { stops.Add(1) }); close(finished) }()
	select {
	case <-finished:
	case <-time.After(5 * time.Second): // at once, with room for a loaded machine
		t.Fatal("watch kept polling with nothing to watch")
	}
	_, cpu = g.stopped()
	assert.Check(t, is.Equal(cpu, ""))
}

// TestMeterRefusesALimitItCannotKeep: with a CPU-time limit and no
// counter, the program must not start; without a limit, usage is null.
func TestMeterRefusesALimitItCannotKeep(t *testing.T) {
	m := &meter{cg: newCgroup(t.TempDir()), limit: time.Second}
	assert.ErrorContains(t, m.open(), "the CPU counter cannot be read, so the CPU-time limit cannot be kept")
	m = &meter{cg: newCgroup(t.TempDir())}
	assert.NilError(t, m.open())
	m.begin()
	assert.Check(t, m.usage(nil).CPUMicros == nil)
}

// TestMeterTakesOffTheRunnersOwnTime: the runner's own CPU time since
// begin is not the program's: of 1.3 s the cgroup counted, 0.4 s the
// runner's, the program used 0.9 s and is below a 1 s limit; the
// runner's time never makes the program's negative.
func TestMeterTakesOffTheRunnersOwnTime(t *testing.T) {
	dir, set := fakeCPU(t)
	own := int64(2_000_000)
	m := &meter{cg: newCgroup(dir), limit: time.Second, own: func() int64 { return own }}
	assert.NilError(t, m.open())
	m.begin() // cgroup 5 s, runner 2 s
	set(6_300_000)
	own = 2_400_000
	assert.Equal(t, m.over(), "")
	set(6_500_000)
	assert.Equal(t, m.over(), "CPU-time limit of 1s reached: 1.1s used")
	own = 9_000_000
	assert.Equal(t, *m.usage(nil).CPUMicros, int64(0))
}
