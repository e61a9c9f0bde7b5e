package main

import (
	"fmt"
	"path/filepath"
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

// cpuPath is the cgroup's CPU counter. On v1 the cpuacct controller may be
// mounted alone or with cpu (cpu,cpuacct); docker links cpuacct either way.
func (c cgroup) cpuPath() string {
	if c.v2 {
		return filepath.Join(c.root, "cpu.stat")
	}
	return filepath.Join(c.root, "cpuacct", "cpuacct.usage")
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
}

// over reports, once the CPU-time limit is reached, how far: the CPU time
// used; "" while below it or with no limit.
func (m *meter) over() string {
	if m == nil || m.limit == 0 || m.cpu == nil {
		return ""
	}
	now, err := m.cpu.micros()
	if err != nil || time.Duration(now-m.base)*time.Microsecond < m.limit {
		return ""
	}
	return fmt.Sprintf("CPU-time limit of %s reached: %s used", m.limit,
		(time.Duration(now-m.base) * time.Microsecond).Round(time.Millisecond))
}

// usage is what the program used since begin: read once it and every
// process it started are gone. A value that cannot be read is nil.
func (m *meter) usage() *protocol.Usage {
	if m == nil {
		return nil
	}
	var u protocol.Usage
	if m.cpu != nil {
		if now, err := m.cpu.micros(); err == nil {
			d := max(now-m.base, 0)
			u.CPUMicros = &d
		}
		m.cpu.close()
		m.cpu = nil
	}
	if peak, err := m.cg.memoryPeak(); err == nil {
		u.MemoryPeakBytes = &peak
	}
	return &u
}
