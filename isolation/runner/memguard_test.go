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
	v1 := newCgroupMem("testdata/cgroup-v1")
	assert.Assert(t, !v1.v2)
	anon, faults, err := v1.usage()
	assert.NilError(t, err)
	assert.Equal(t, anon, int64(56950784))
	assert.Equal(t, faults, int64(32996))
	kills, err := v1.oomKills()
	assert.NilError(t, err)
	assert.Equal(t, kills, int64(3))

	v2 := newCgroupMem("testdata/cgroup-v2")
	assert.Assert(t, v2.v2)
	anon, faults, err = v2.usage()
	assert.NilError(t, err)
	assert.Equal(t, anon, int64(61865984))
	assert.Equal(t, faults, int64(3101))
	kills, err = v2.oomKills()
	assert.NilError(t, err)
	assert.Equal(t, kills, int64(2))

	_, err = newCgroupMem(t.TempDir()).oomKills()
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

func TestGuardStopsWithinHeadroom(t *testing.T) {
	dir, set := fakeV2(t)
	const limit = 64 << 20
	set(10<<20, 0)
	g := &guard{cg: newCgroupMem(dir), limit: limit}
	var stops atomic.Int32
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() { g.watch(done, func() { stops.Add(1) }); close(finished) }()
	time.Sleep(5 * guardEvery)
	assert.Equal(t, stops.Load(), int32(0), "well under the limit: no stop")
	set(limit-headroom(limit), 0)
	select {
	case <-finished:
	case <-time.After(2 * time.Second):
		t.Fatal("the guard did not stop the program within its headroom")
	}
	close(done)
	assert.Equal(t, stops.Load(), int32(1))
	assert.Check(t, is.Contains(g.stopped(), "memory exhausted: 62914560 of 67108864 bytes in use (runner guard)"))
}

func TestGuardStopsThrashing(t *testing.T) {
	dir, set := fakeV2(t)
	const limit = 64 << 20
	anon := int64(limit) * 4 / 5
	set(anon, 0)
	g := &guard{cg: newCgroupMem(dir), limit: limit}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() { g.watch(done, func() {}); close(finished) }()
	for faults := int64(0); ; faults += 100 {
		set(anon, faults) // about 10,000 major faults a second, as seen here
		select {
		case <-finished:
			close(done)
			assert.Check(t, is.Contains(g.stopped(), "thrashing at 53687091 of 67108864 bytes"))
			return
		case <-time.After(guardEvery):
		}
		if faults > 100_000 {
			t.Fatal("the guard did not notice thrashing")
		}
	}
}

func TestGuardQuietWhileFaultsComeFromASmallProgram(t *testing.T) {
	dir, set := fakeV2(t)
	const limit = 64 << 20
	g := &guard{cg: newCgroupMem(dir), limit: limit}
	done := make(chan struct{})
	var stops atomic.Int32
	go g.watch(done, func() { stops.Add(1) })
	for faults := int64(0); faults < 3000; faults += 100 {
		set(8<<20, faults) // many faults, little memory: reading its own binary, not thrashing
		time.Sleep(guardEvery)
	}
	close(done)
	time.Sleep(2 * guardEvery)
	assert.Equal(t, g.stopped(), "")
	assert.Equal(t, stops.Load(), int32(0))
}
