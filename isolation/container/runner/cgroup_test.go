package main

import (
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol/hello"
)

// TestParseInt: the one integer parser takes what cgroup and /proc files
// show (a newline, v1's -1 quota, its near-2^63 "no limit") and refuses
// anything else, an overflow included.
func TestParseInt(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "64\n": 64, " 536870912 \n": 536870912, "-1\n": -1,
		"9223372036854771712\n": 9223372036854771712, "9223372036854775807": 1<<63 - 1,
	} {
		n, err := parseInt([]byte(in))
		assert.Check(t, err == nil && n == want, "%q: got %d, %v", in, n, err)
	}
	for _, in := range []string{"", "\n", "-", "max", "12a", "1 2", "+5", "9223372036854775808", "99999999999999999999"} {
		_, err := parseInt([]byte(in))
		assert.Check(t, err == errNotNumber, "%q: %v", in, err)
	}
}

// TestSelfcheckCgroupRecordedFiles: the limits as a container given
// --memory 512m --memory-swap 512m --pids-limit 64 --cpus 1 sees them,
// v1 and v2, normalized to one form.
func TestSelfcheckCgroupRecordedFiles(t *testing.T) {
	for _, tc := range []struct {
		dir     string
		version int
	}{{"testdata/cgroup-v1", 1}, {"testdata/cgroup-v2", 2}} {
		var s hello.Selfcheck
		var problems []string
		readCgroup(newCgroup(tc.dir), &s, func(what string, err error) { problems = append(problems, what+": "+err.Error()) })
		assert.Check(t, is.Len(problems, 0), tc.dir)
		assert.Check(t, is.DeepEqual(s, hello.Selfcheck{
			CgroupVersion: tc.version, MemoryMax: 512 << 20, SwapMax: 0, PidsMax: 64, CPUMax: "100000 100000", CPUCounter: true,
		}), tc.dir)
	}
}

// TestSelfcheckCgroupUnlimited: "max", v1's -1 quota and its huge
// sentinel read as no limit (-1); a file that is missing or not a number
// is a problem, never a guess.
func TestSelfcheckCgroupUnlimited(t *testing.T) {
	v1 := t.TempDir()
	for name, value := range map[string]string{
		"memory/memory.limit_in_bytes": "9223372036854771712\n", "memory/memory.memsw.limit_in_bytes": "9223372036854771712\n",
		"pids/pids.max": "max\n", "cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n",
	} {
		assert.NilError(t, os.MkdirAll(filepath.Dir(filepath.Join(v1, name)), 0o755))
		assert.NilError(t, os.WriteFile(filepath.Join(v1, name), []byte(value), 0o644))
	}
	var s hello.Selfcheck
	var problems []string
	problem := func(what string, err error) { problems = append(problems, what+": "+err.Error()) }
	readCgroup(newCgroup(v1), &s, problem)
	assert.Check(t, is.DeepEqual(s, hello.Selfcheck{CgroupVersion: 1, MemoryMax: -1, PidsMax: -1, CPUMax: "max 100000"}))
	assert.Check(t, is.Len(problems, 1)) // the CPU counter: no cpuacct here

	v2 := t.TempDir()
	for name, value := range map[string]string{
		"cgroup.controllers": "memory pids\n", "memory.max": "max\n", "memory.swap.max": "lots\n", "cpu.max": "max 100000\n",
	} {
		assert.NilError(t, os.WriteFile(filepath.Join(v2, name), []byte(value), 0o644))
	}
	s, problems = hello.Selfcheck{}, nil
	readCgroup(newCgroup(v2), &s, problem)
	assert.Check(t, is.DeepEqual(s, hello.Selfcheck{CgroupVersion: 2, MemoryMax: -1, SwapMax: -1, PidsMax: -1, CPUMax: "max 100000"}))
	assert.Check(t, is.Len(problems, 3), "%q", problems) // the CPU counter, memory.swap.max, pids.max
	assert.Check(t, is.Contains(problems[1], "memory.swap.max: not a decimal integer"))
}

// TestCgroupFileCounter: a counter is found by its whole key, not by a
// prefix (memory.events has oom_kill and oom_group_kill).
func TestCgroupFileCounter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.events")
	assert.NilError(t, os.WriteFile(path, []byte("oom_group_kill 5\noom 2\noom_kill 1\n"), 0o644))
	n, err := counterOnce(path, "oom_kill")
	assert.NilError(t, err)
	assert.Equal(t, n, int64(1))
	_, err = counterOnce(path, "oom_kil")
	assert.ErrorContains(t, err, "no oom_kil counter in ")
}

// TestGuardReadsAllocateNothing: what the guard reads on every poll, from
// files it holds open, allocates nothing: near the limit every new page
// the runner needs could be the one the kernel takes it for.
func TestGuardReadsAllocateNothing(t *testing.T) {
	for _, dir := range []string{"testdata/cgroup-v1", "testdata/cgroup-v2"} {
		cg := newCgroup(dir)
		stat, err := cg.openStat()
		assert.NilError(t, err)
		cpu, err := cg.openCPU()
		assert.NilError(t, err)
		total, err := cg.openUsage()
		assert.NilError(t, err)
		allocs := testing.AllocsPerRun(100, func() {
			_, _, err1 := stat.usage()
			_, err2 := cpu.micros()
			_, err3 := total.number()
			if err1 != nil || err2 != nil || err3 != nil {
				t.Fatal(err1, err2, err3)
			}
		})
		assert.Check(t, allocs == 0, "%s: %v allocations a poll", dir, allocs)
		stat.close()
		cpu.close()
		total.close()
	}
}
