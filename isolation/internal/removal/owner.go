package removal

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Owner identifies a supervisor process across the host's processes and
// reboots: the kernel's boot id, the pid, and the process's start time in
// clock ticks since boot (a reused pid starts later). Containers carry it
// as a label, so gc on the same host can remove at once the containers of
// a supervisor that was killed outright.
type Owner struct {
	BootID string
	PID    int
	Start  uint64
}

// String is the label value: boot-id:pid:start.
func (o Owner) String() string { return fmt.Sprintf("%s:%d:%d", o.BootID, o.PID, o.Start) }

// ParseOwner reads a label value; ok is false for anything else.
func ParseOwner(s string) (Owner, bool) {
	f := strings.Split(s, ":")
	if len(f) != 3 || f[0] == "" {
		return Owner{}, false
	}
	pid, err1 := strconv.Atoi(f[1])
	start, err2 := strconv.ParseUint(f[2], 10, 64)
	if err1 != nil || err2 != nil || pid <= 0 {
		return Owner{}, false
	}
	return Owner{BootID: f[0], PID: pid, Start: start}, true
}

// procRoot is where self and gone read the host's processes.
type procRoot string

// hostProc is the real /proc.
const hostProc procRoot = "/proc"

// bootID is this boot's id.
func (p procRoot) bootID() (string, error) {
	b, err := os.ReadFile(string(p) + "/sys/kernel/random/boot_id")
	return strings.TrimSpace(string(b)), err
}

// startTime is a process's start time in clock ticks since boot (field 22
// of /proc/PID/stat, counted after the command, which may hold spaces).
func (p procRoot) startTime(pid int) (uint64, error) {
	b, err := os.ReadFile(fmt.Sprintf("%s/%d/stat", p, pid))
	if err != nil {
		return 0, err
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0, fmt.Errorf("/proc/%d/stat: short", pid)
	}
	return strconv.ParseUint(f[19], 10, 64)
}

// self returns the identity of this process.
func (p procRoot) self() (Owner, error) {
	boot, err := p.bootID()
	if err != nil {
		return Owner{}, err
	}
	pid := os.Getpid()
	start, err := p.startTime(pid)
	if err != nil {
		return Owner{}, err
	}
	return Owner{BootID: boot, PID: pid, Start: start}, nil
}

// gone reports whether o is a process of this boot that no longer runs
// (its pid is free, or taken by a later process). An owner of another
// boot or another host is never called gone: gc cannot see it.
func (p procRoot) gone(o Owner) bool {
	boot, err := p.bootID()
	if err != nil || boot != o.BootID {
		return false
	}
	start, err := p.startTime(o.PID)
	return err != nil || start != o.Start
}

// selfOwner returns this process's identity, for the owner label.
func selfOwner() (Owner, error) { return hostProc.self() }

// SelfLabel is the owner label of this process, empty if its identity
// cannot be read (the container then carries none; gc goes by deadline).
func SelfLabel() string {
	if self, err := selfOwner(); err == nil {
		return self.String()
	}
	return ""
}
