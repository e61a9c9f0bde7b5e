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

func TestCgroupMemRecordedFiles(t *testing.T) {
	v1 := newCgroup("testdata/cgroup-v1")
	assert.Assert(t, !v1.v2)
	anon, faults, err := v1.usage()
	assert.NilError(t, err)
	assert.Equal(t, anon, int64(56950784))
	assert.Equal(t, faults, int64(32996))
	kills, err := v1.oomKills()
	assert.NilError(t, err)
	assert.Equal(t, kills, int64(3))

	v2 := newCgroup("testdata/cgroup-v2")
	assert.Assert(t, v2.v2)
	anon, faults, err = v2.usage()
	assert.NilError(t, err)
	assert.Equal(t, anon, int64(61865984))
	assert.Equal(t, faults, int64(3101))
	kills, err = v2.oomKills()
	assert.NilError(t, err)
	assert.Equal(t, kills, int64(2))

	_, err = newCgroup(t.TempDir()).oomKills()
	assert.Assert(t, err != nil, "no cgroup files: an error, never a zero count")
}

// fakeV2 is a writable cgroup v2 directory for the guard to watch.
func fakeV2(t *testing.T) (dir string, set func(anon, faults int64)) {
	dir = t.TempDir()
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "cgroup.controllers"), []byte("memory pids\n"), 0o644))
	// Written in place, as the kernel's file changes under one open fd; a
	// read that sees it half written misses a key and is skipped.
	set = func(anon, faults int64) {
		line := fmt.Sprintf("anon %020d\nfile 0\npgmajfault %020d\n", anon, faults)
		assert.NilError(t, os.WriteFile(filepath.Join(dir, "memory.stat"), []byte(line), 0o644))
	}
	return dir, set
}

// TestGuardWatchStopsOverTheLimit: watch reads the cgroup's own file and
// stops the program, once, with its reason; under the limit it does not.
func TestGuardWatchStopsOverTheLimit(t *testing.T) {
	dir, set := fakeV2(t)
	const limit = 64 << 20
	set(limit-headroom(limit), 0)
	g := &guard{cg: newCgroup(dir), limit: limit}
	var stops atomic.Int32
	finished := make(chan struct{})
	go func() { g.watch(make(chan struct{}), func() { stops.Add(1) }); close(finished) }()
	select {
	case <-finished:
	case <-time.After(5 * time.Second):
		t.Fatal("the guard did not stop the program within its headroom")
	}
	assert.Equal(t, stops.Load(), int32(1))
	why, _ := g.stopped()
	assert.Check(t, is.Contains(why, "memory exhausted: 62914560 of 67108864 bytes in use (runner guard)"))

	// Under the limit, watch keeps watching until done.
	set(10<<20, 0)
	g = &guard{cg: newCgroup(dir), limit: limit}
	done, finished := make(chan struct{}), make(chan struct{})
	go func() { g.watch(done, func() { stops.Add(1) }); close(finished) }()
	select {
	case <-finished:
		t.Fatal("watch returned while the program was well under its limit")
	case <-time.After(10 * guardEvery):
	}
	close(done)
	<-finished
	assert.Equal(t, stops.Load(), int32(1))
	why, cpu := g.stopped()
	assert.Equal(t, why+cpu, "")
}

// samples feeds the judge one sample every step from t0 and returns the
// first reason to stop and the sample it came at (-1: none).
func samples(j *judge, step time.Duration, anon func(i int) int64, faults func(i int) int64, count int) (string, int) {
	t0 := time.Unix(1_800_000_000, 0)
	for i := 0; i < count; i++ {
		if why, _ := j.observe(t0.Add(time.Duration(i)*step), anon(i), faults(i)); why != "" {
			return why, i
		}
	}
	return "", -1
}

func TestJudgeStopsWithinHeadroom(t *testing.T) {
	const limit = 64 << 20
	j := &judge{limit: limit}
	// Growing by 1 MiB a sample: stopped at the first sample within the headroom.
	why, at := samples(j, guardFast, func(i int) int64 { return int64(i) << 20 }, func(int) int64 { return 0 }, 100)
	assert.Equal(t, at, 60)
	assert.Check(t, is.Contains(why, "memory exhausted: 62914560 of 67108864 bytes in use (runner guard)"))
}

func TestJudgeStopsThrashing(t *testing.T) {
	const limit = 64 << 20
	j := &judge{limit: limit}
	// 4/5 of the limit, 100 major faults every 10 ms (10,000 a second, as
	// seen here): thrashing once 200 faults fall within the window.
	why, at := samples(j, guardEvery, func(int) int64 { return limit * 4 / 5 }, func(i int) int64 { return int64(i) * 100 }, 100)
	assert.Equal(t, at, 2)
	assert.Check(t, is.Contains(why, "thrashing at 53687091 of 67108864 bytes, 200 major faults in 20ms"))
}

func TestJudgeQuietWhileFaultsComeFromASmallProgram(t *testing.T) {
	const limit = 64 << 20
	j := &judge{limit: limit}
	// Many faults, little memory: reading its own binary, not thrashing.
	why, at := samples(j, guardEvery, func(int) int64 { return 8 << 20 }, func(i int) int64 { return int64(i) * 100 }, 1000)
	assert.Equal(t, why, "")
	assert.Equal(t, at, -1)
	// Much memory, faults too slow to be thrashing (100 a second).
	j = &judge{limit: limit}
	why, _ = samples(j, guardEvery, func(int) int64 { return limit * 4 / 5 }, func(i int) int64 { return int64(i) }, 1000)
	assert.Equal(t, why, "")
}

func TestJudgePollsFasterPastHalfTheLimit(t *testing.T) {
	j := &judge{limit: 64 << 20}
	_, next := j.observe(time.Unix(0, 0), 10<<20, 0)
	assert.Equal(t, next, guardEvery)
	_, next = j.observe(time.Unix(0, int64(guardEvery)), 40<<20, 0)
	assert.Equal(t, next, guardFast)
}

// TestGuardSkipsTheStatBelowHalf: while the cgroup's whole usage (a cheap
// read) is under half the limit, memory.stat is not read, since anonymous
// memory cannot be more; above it, the stat decides as before.
func TestGuardSkipsTheStatBelowHalf(t *testing.T) {
	dir, set := fakeV2(t)
	const limit = 64 << 20
	set(limit, 0) // the stat alone would stop the program
	current := filepath.Join(dir, "memory.current")
	assert.NilError(t, os.WriteFile(current, []byte("1048576\n"), 0o644))
	g := &guard{cg: newCgroup(dir), limit: limit}
	done, finished := make(chan struct{}), make(chan struct{})
	go func() { g.watch(done, func() {}); close(finished) }()
	select {
	case <-finished:
		t.Fatal("memory.stat was read below half the limit")
	case <-time.After(10 * guardEvery):
	}
	assert.NilError(t, os.WriteFile(current, []byte(fmt.Sprintf("%020d\n", limit)), 0o644))
	select {
	case <-finished:
	case <-time.After(5 * time.Second):
		t.Fatal("the guard did not read memory.stat above half the limit")
	}
	why, _ := g.stopped()
	assert.Check(t, is.Contains(why, "memory exhausted"))
	close(done)
}
