package main

import (
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// cpuCounter reads the cgroup's CPU time (user plus system, of every
// process in it): v1 cpuacct/cpuacct.usage in nanoseconds, v2 cpu.stat's
// usage_usec.
type cpuCounter struct {
	file *cgroupFile
	v2   bool
}

func (c cgroup) openCPU() (*cpuCounter, error) {
	f, err := openCgroupFile(c.cpuPath(), smallFile)
	if err != nil {
		return nil, err
	}
	r := &cpuCounter{file: f, v2: c.v2}
	if _, err := r.micros(); err != nil {
		f.close()
		return nil, err
	}
	return r, nil
}

func (r *cpuCounter) close() { r.file.close() }

// micros returns the cgroup's CPU time so far, in microseconds.
func (r *cpuCounter) micros() (int64, error) {
	if !r.v2 {
		ns, err := r.file.number()
		return ns / 1000, err
	}
	return r.file.counter("usage_usec")
}

// meter measures a program's usage on the cgroup: its CPU time from begin,
// and, when a limit is set, whether it reached it.
type meter struct {
	cg    cgroup
	limit time.Duration // CPU-time limit; zero: none
	cpu   *cpuCounter   // nil where the counter cannot be read
	base  int64
	// own is the runner's own CPU time in microseconds (ownMicros), taken
	// off the cgroup's: the runner is in the program's cgroup, and its
	// polls, its reads of the program's output and its guard are not the
	// program's time. Under gVisor, which counts a task's time by the
	// wall clock while it is scheduled, a loaded host charged a sleeping
	// program 1 s of CPU in 3.4 s, most of it the runner's. nil: nothing
	// is taken off (tests of the counter alone).
	own     func() int64
	ownBase int64
	// gvisor: the peak is the program's own maximum resident set
	// (peakOf), where gVisor's cgroupfs keeps no peak.
	gvisor bool
	// memLimit caps that peak under gVisor: the container's memory limit
	// (zero or less: none known).
	memLimit int64
}

// open opens the CPU counter ahead of the program. Without it a CPU-time
// limit cannot be kept, and the program must not run (the host refuses
// such a runner at its hello already; this holds if the counter went
// away since).
func (m *meter) open() error {
	if m.cpu != nil {
		return nil
	}
	c, err := m.cg.openCPU()
	if err != nil && m.limit > 0 {
		return fmt.Errorf("the CPU counter cannot be read, so the CPU-time limit cannot be kept: %w", err)
	}
	m.cpu = c
	return nil
}

// begin reads where the program's time starts, opening the counter if
// open was not called (whose refusal the runner acted on before).
func (m *meter) begin() {
	if m == nil {
		return
	}
	_ = m.open()
	if m.cpu != nil {
		m.base, _ = m.cpu.micros()
	}
	if m.own != nil {
		m.ownBase = m.own()
	}
}

// used is the program's CPU time since begin, of the cgroup's now: the
// cgroup's less the runner's own, never below zero.
func (m *meter) used(now int64) time.Duration {
	d := now - m.base
	if m.own != nil {
		d -= m.own() - m.ownBase
	}
	return time.Duration(max(d, 0)) * time.Microsecond
}

// ownMicros is the runner's own CPU time (user plus system, every thread
// of its process; not its children's), in microseconds.
func ownMicros() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano()/1000 + ru.Stime.Nano()/1000
}

// over reports, once the CPU-time limit is reached, how far: the CPU time
// used; "" while below it or with no limit.
func (m *meter) over() string {
	if m == nil || m.limit == 0 || m.cpu == nil {
		return ""
	}
	now, err := m.cpu.micros()
	if err != nil || m.used(now) < m.limit {
		return ""
	}
	return fmt.Sprintf("CPU-time limit of %s reached: %s used", m.limit, m.used(now).Round(time.Millisecond))
}

// usage is what the program used since begin: read once it and every
// process it started are gone; ps is how the program's process ended. A
// value that cannot be read is nil.
func (m *meter) usage(ps *os.ProcessState) *protocol.Usage {
	if m == nil {
		return nil
	}
	var u protocol.Usage
	if m.cpu != nil {
		if now, err := m.cpu.micros(); err == nil {
			d := m.used(now).Microseconds()
			u.CPUMicros = &d
		}
		m.cpu.close()
		m.cpu = nil
	}
	if m.gvisor {
		u.MemoryPeakBytes = peakOf(ps, m.memLimit)
	} else if peak, err := m.cg.memoryPeak(); err == nil {
		u.MemoryPeakBytes = &peak
	}
	return &u
}

// peakOf is the program's peak under gVisor: the maximum resident set of
// the runner's child (the Starlark child, or the interpreter the
// trampoline became) and of the descendants it waited for, as wait4
// reports it, in bytes; nil if unknown. gVisor's cgroupfs keeps no peak
// (no memory.max_usage_in_bytes), but its sentry keeps each process's
// maximum RSS as Linux does. Not getrusage(RUSAGE_CHILDREN): that is the
// largest of every child the runner reaped, and the decoy, a fork of the
// runner, is one. What it leaves out: orphans the program left, which the
// runner reaps as PID 1, and /tmp files, which the cgroup peak counts.
//
// It is capped at limit (when above zero): gVisor's resident set counts
// every page it maps for the program, private anonymous memory in whole
// 2 MiB units touched or not and the image's file pages it maps, while
// its memory limit counts what is committed, so the set can exceed a limit
// that held (rustc's 372 MB against its 159 MB cgroup peak under runc; a
// Ruby program stopped by the guard at 235 MB of 256m, 284 MB). The host
// refuses a peak past the limit as a lying runner's, which made such a
// run a sandbox failure; no more than the limit can have been held.
func peakOf(ps *os.ProcessState, limit int64) *int64 {
	if ps == nil {
		return nil
	}
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru.Maxrss <= 0 {
		return nil
	}
	b := ru.Maxrss << 10 // KiB
	if limit > 0 {
		b = min(b, limit)
	}
	return &b
}

// ownOf is m's reader of the runner's own time, for a step's meter of its
// own: nil when m is nil or has none.
func (m *meter) ownOf() func() int64 {
	if m == nil {
		return nil
	}
	return m.own
}
