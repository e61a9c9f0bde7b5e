// Package attestation holds the runner selfchecks the test doubles claim:
// the fake docker of the unit tests and the lying runners of the probe
// image. Built from protocol.Selfcheck, so a renamed field breaks the
// build, not a test.
package attestation

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// Perfect is the selfcheck of a container that enforces the whole policy
// with the given memory limit.
func Perfect(memory int64) protocol.Selfcheck {
	return protocol.Selfcheck{
		UID: limits.UID, GID: limits.GID, Groups: []int{limits.GID},
		CapEff: limits.CapEffNone, NoNewPrivs: limits.NoNewPrivsOn, Seccomp: limits.SeccompModeFilter,
		CgroupVersion: 1, MemoryMax: memory, SwapMax: 0, PidsMax: limits.PIDs, CPUMax: limits.CPUMax, CPUCounter: true,
		NoFileSoft: limits.NoFile, NoFileHard: limits.NoFile, CoreSoft: limits.Core, CoreHard: limits.Core,
		TmpOptions: tmpOptions(), TmpBytes: limits.TmpBytes, TmpMode: limits.TmpMode, TmpWritable: true,
		RootReadOnly: true, Interfaces: slices.Clone(limits.Interfaces), EnvKeys: slices.Clone(limits.EngineEnv),
		SyscallProbes: FilteredProbes(), ProcProbes: ClosedProc(),
	}
}

// tmpOptions are /tmp's mount options as the kernel shows a tmpfs mounted
// with the policy's: its flags, in the kernel's order, and size in KiB.
func tmpOptions() string {
	return "rw,nosuid,nodev,noexec,relatime,size=" + strconv.Itoa(limits.TmpBytes>>10) + "k"
}

// Weak is the selfcheck under a runtime that drops limits (as gVisor does
// here: /tmp executable and unbounded, no cgroups, /dev/shm writable).
func Weak() protocol.Selfcheck {
	s := Perfect(-1)
	s.SwapMax, s.PidsMax, s.CPUMax, s.CPUCounter = -1, -1, "", false
	s.TmpOptions, s.TmpBytes, s.DevShmWritable = "rw,nosuid,nodev,relatime", 8<<30, true
	s.Problems = []string{"memory.limit_in_bytes: no such file or directory"}
	return s
}

// FilteredProbes is every syscall probe answered by the policy's filter.
func FilteredProbes() map[string]int {
	m := make(map[string]int, len(limits.SeccompProbes))
	for _, name := range limits.SeccompProbes {
		m[name] = limits.FilterErrno
	}
	return m
}

// ClosedProc is the runner's /proc as a non-dumpable runner shows it to
// the program: every open refused.
func ClosedProc() map[string]int {
	m := make(map[string]int, len(protocol.ProcProbeFiles))
	for _, name := range protocol.ProcProbeFiles {
		m[name] = 13 // EACCES
	}
	return m
}

// Hello is the runner's first frame for s, newline included.
func Hello(s protocol.Selfcheck) string {
	b, err := json.Marshal(protocol.Hello{V: protocol.Version, Selfcheck: &s})
	if err != nil {
		panic(err)
	}
	return string(b) + "\n"
}
