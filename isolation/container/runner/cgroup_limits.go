package main

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol/hello"
)

// readCgroup fills the limits from cgroup v2 if mounted, else from v1.
// Under gVisor the swap limit is not read: its cgroupfs has no swap file
// (v1 memsw), and gVisor keeps no swap of its own; the host proves the
// swap cap from its view of the sandbox, so SwapMax stays -1 and its
// absence is no problem.
func readCgroup(cg cgroup, s *hello.Selfcheck, problem func(string, error)) {
	if c, err := cg.openCPU(); err != nil {
		problem("cpu counter", err)
	} else {
		s.CPUCounter = true
		c.close()
	}
	if cg.v2 {
		s.CgroupVersion = 2
		s.MemoryMax = readLimit(cg.path("memory.max"), problem)
		if !s.GVisor() {
			s.SwapMax = readLimit(cg.path("memory.swap.max"), problem)
		}
		s.PidsMax = readLimit(cg.path("pids.max"), problem)
		if b, err := readOnce(cg.path("cpu.max")); err != nil {
			problem("cpu.max", err)
		} else {
			s.CPUMax = strings.TrimSpace(string(b))
		}
		return
	}
	s.CgroupVersion = 1
	mem := readLimit(cg.path("memory/memory.limit_in_bytes"), problem)
	s.MemoryMax = mem
	if !s.GVisor() {
		memsw := readLimit(cg.path("memory/memory.memsw.limit_in_bytes"), problem)
		if mem >= 0 && memsw >= 0 {
			// v1 limits memory+swap together; the swap allowance is the difference.
			s.SwapMax = memsw - mem
		}
	}
	s.PidsMax = readLimit(cg.path("pids/pids.max"), problem)
	quota := readLimit(cg.path("cpu/cpu.cfs_quota_us"), problem)
	period := readLimit(cg.path("cpu/cpu.cfs_period_us"), problem)
	q := "max"
	if quota >= 0 {
		q = strconv.FormatInt(quota, 10)
	}
	s.CPUMax = q + " " + strconv.FormatInt(period, 10)
}

// unlimitedV1 is what cgroup v1 shows for "no limit" (PAGE_COUNTER_MAX pages).
const unlimitedV1 = 1 << 62

// readLimit reads a single-number cgroup file; "max", -1 and v1's huge
// sentinel all mean unlimited and read as -1.
func readLimit(path string, problem func(string, error)) int64 {
	b, err := readOnce(path)
	if err != nil {
		problem(filepath.Base(path), err)
		return -1
	}
	if string(bytes.TrimSpace(b)) == "max" {
		return -1
	}
	n, err := parseInt(b)
	if err != nil {
		problem(filepath.Base(path), err)
		return -1
	}
	if n < 0 || n >= unlimitedV1 {
		return -1
	}
	return n
}
