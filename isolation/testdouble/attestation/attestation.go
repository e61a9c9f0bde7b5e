// Package attestation holds the runner selfchecks the test doubles claim:
// the fake docker of the unit tests and the lying runners of the probe
// image. Built from protocol.Selfcheck, so a renamed field breaks the
// build, not a test.
package attestation

import (
	"encoding/json"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// Perfect is the selfcheck of a container that enforces the whole policy
// with the given memory limit.
func Perfect(memory int64) protocol.Selfcheck {
	return protocol.Selfcheck{
		UID: limits.UID, GID: limits.GID, Groups: []int{limits.GID}, CapEff: "0000000000000000", NoNewPrivs: 1, Seccomp: 2,
		CgroupVersion: 1, MemoryMax: memory, SwapMax: 0, PidsMax: limits.PIDs, CPUMax: "100000 100000", CPUCounter: true,
		NoFileSoft: limits.NoFile, NoFileHard: limits.NoFile, CoreSoft: 0, CoreHard: 0,
		TmpOptions: "rw,nosuid,nodev,noexec,relatime,size=32768k", TmpBytes: limits.TmpBytes, TmpMode: "1777", TmpWritable: true,
		RootReadOnly: true, Interfaces: []string{"lo"}, EnvKeys: []string{"HOME", "HOSTNAME", "PATH"},
		SyscallProbes: FilteredProbes(), ProcProbes: ClosedProc(),
	}
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
