package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// fakeGVisor is a writable copy of gVisor's cgroupfs as recorded under
// runsc (testdata/cgroup-gvisor): memory.usage_in_bytes and no
// memory.stat, memory.max_usage_in_bytes or memory.oom_control.
func fakeGVisor(t *testing.T) (dir string, set func(use int64)) {
	dir = t.TempDir()
	assert.NilError(t, os.CopyFS(dir, os.DirFS("testdata/cgroup-gvisor")))
	usage := filepath.Join(dir, "memory", "memory.usage_in_bytes")
	assert.NilError(t, os.Chmod(usage, 0o644))
	set = func(use int64) {
		// Fixed width, written in place, as the file changes under one fd.
		assert.NilError(t, os.WriteFile(usage, fmt.Appendf(nil, "%020d\n", use), 0o644))
	}
	return dir, set
}

// TestGuardUnderGVisorJudgesTheWholeUsage: under gVisor the guard judges
// the sandbox's whole usage and stops the program gvisorHeadroom before
// the limit, where the host would kill the whole sandbox; below it, it
// keeps watching.
func TestGuardUnderGVisorJudgesTheWholeUsage(t *testing.T) {
	dir, set := fakeGVisor(t)
	const limit = 128 << 20
	set(limit - gvisorHeadroom(limit) - 1)
	g := &guard{cg: newCgroup(dir), limit: limit, gvisor: true}
	var stops atomic.Int32
	done, finished := make(chan struct{}), make(chan struct{})
	go func() { g.watch(done, func() { stops.Add(1) }); close(finished) }()
	select {
	case <-finished:
		t.Fatal("stopped below the threshold")
	case <-time.After(20 * guardFast):
	}
	set(limit - gvisorHeadroom(limit))
	select {
	case <-finished:
	case <-time.After(5 * time.Second):
		t.Fatal("the guard did not stop the program at the threshold")
	}
	assert.Equal(t, stops.Load(), int32(1))
	why, _ := g.stopped()
	assert.Check(t, is.Equal(why, "memory exhausted: 100663296 of 134217728 bytes in use (runner guard)"))
	close(done)
}

// TestGuardWithoutTheStatOutsideGVisor: the same files seen by a runner
// that is not under gVisor are not judged by their whole usage (page cache
// counts there): the guard has nothing to watch and returns at once,
// neither failing nor spinning.
func TestGuardWithoutTheStatOutsideGVisor(t *testing.T) {
	dir, set := fakeGVisor(t)
	set(1 << 40)
	g := &guard{cg: newCgroup(dir), limit: 128 << 20}
	finished := make(chan struct{})
	go func() { g.watch(make(chan struct{}), func() { t.Error("stopped") }); close(finished) }()
	select {
	case <-finished:
	case <-time.After(5 * time.Second): // at once, with room for a loaded machine
		t.Fatal("watch kept polling with nothing to watch")
	}
}

// TestGVisorNext: the guard looks again when a program filling memory at
// gvisorFillRate could have used the room left, within guardFast and
// guardIdle.
func TestGVisorNext(t *testing.T) {
	const limit, reserve = 128 << 20, 32 << 20
	for use, want := range map[int64]time.Duration{
		0:                                  48 * time.Millisecond, // 96 MiB of room at 2 MiB a ms
		28 << 20:                           34 * time.Millisecond, // Python at rest
		limit - reserve - 2*gvisorFillRate: guardFast,
		limit:                              guardFast,
	} {
		assert.Check(t, is.Equal(gvisorNext(limit, reserve, use), want), "use %d", use)
	}
	assert.Check(t, is.Equal(gvisorNext(8<<30, 64<<20, 0), guardIdle), "a large limit: polled at most every guardIdle")
}

// TestGuardReadsUnderGVisorAllocateNothing: what the guard reads on every
// poll under gVisor, from files it holds open, allocates nothing.
func TestGuardReadsUnderGVisorAllocateNothing(t *testing.T) {
	cg := newCgroup("testdata/cgroup-gvisor")
	_, err := cg.openStat()
	assert.Check(t, err != nil, "gVisor has no memory.stat")
	cpu, err := cg.openCPU()
	assert.NilError(t, err)
	defer cpu.close()
	total, err := cg.openUsage()
	assert.NilError(t, err)
	defer total.close()
	allocs := testing.AllocsPerRun(100, func() {
		_, err1 := cpu.micros()
		_, err2 := total.number()
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
	})
	assert.Check(t, allocs == 0, "%v allocations a poll", allocs)
}

// TestUsageUnderGVisor: the CPU time comes from cpuacct.usage (recorded
// under runsc, in ns); the peak, where gVisor keeps none in its cgroupfs,
// is the program's own maximum resident set as wait4 reports it, and null
// without it.
func TestUsageUnderGVisor(t *testing.T) {
	cg := newCgroup("testdata/cgroup-gvisor")
	c, err := cg.openCPU()
	assert.NilError(t, err)
	micros, err := c.micros()
	c.close()
	assert.NilError(t, err)
	assert.Check(t, is.Equal(micros, int64(140000)))
	_, err = cg.memoryPeak()
	assert.Check(t, err != nil, "gVisor has no memory.max_usage_in_bytes")
	_, err = cg.oomKills()
	assert.Check(t, err != nil, "gVisor has no memory.oom_control")

	// A child that fills a 64 MiB buffer (dd reads into it) and exits.
	cmd := exec.Command("dd", "if=/dev/zero", "of=/dev/null", "bs=64M", "count=1")
	assert.NilError(t, cmd.Run())
	m := &meter{cg: cg, gvisor: true}
	m.begin()
	u := m.usage(cmd.ProcessState)
	assert.Assert(t, u.MemoryPeakBytes != nil)
	assert.Check(t, *u.MemoryPeakBytes >= 64<<20 && *u.MemoryPeakBytes < 256<<20, "%d", *u.MemoryPeakBytes)
	assert.Check(t, u.CPUMicros != nil)

	// gVisor's resident set can pass a limit that held: the peak is
	// capped at the limit, which the host holds every claim to.
	m = &meter{cg: cg, gvisor: true, memLimit: 32 << 20}
	m.begin()
	u = m.usage(cmd.ProcessState)
	assert.Assert(t, u.MemoryPeakBytes != nil)
	assert.Check(t, is.Equal(*u.MemoryPeakBytes, int64(32<<20)))

	m = &meter{cg: cg, gvisor: true}
	assert.Check(t, m.usage(nil).MemoryPeakBytes == nil, "no process state: no peak, never zero")
}
