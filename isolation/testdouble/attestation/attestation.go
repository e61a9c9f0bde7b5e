// Package attestation holds the runner selfchecks the test doubles claim:
// the fake docker of the unit tests and the lying runners of the probe
// image. Built from hello.Selfcheck, so a renamed field breaks the
// build, not a test.
package attestation

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/hello"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// Perfect is the selfcheck of a container that enforces the whole policy
// with the given memory limit, under runc: the host's kernel, the
// engine's filter, no RLIMIT_NPROC (the pids cgroup caps the program).
func Perfect(memory int64) hello.Selfcheck {
	return hello.Selfcheck{
		KernelRelease: "6.1.0-18-amd64", KernelVersion: "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)",
		UID: limits.UID, GID: limits.GID, Groups: []int{limits.GID},
		CapEff: limits.CapEffNone, NoNewPrivs: limits.NoNewPrivsOn, Seccomp: limits.SeccompModeFilter,
		NoNewPrivsPrctl: limits.NoNewPrivsOn, SeccompBy: hello.SeccompByEngine,
		CgroupVersion: 1, MemoryMax: memory, SwapMax: 0, PidsMax: limits.PIDs, CPUMax: limits.CPUMax, CPUCounter: true,
		NoFileSoft: limits.NoFile, NoFileHard: limits.NoFile, CoreSoft: limits.Core, CoreHard: limits.Core,
		NProcSoft: -1, NProcHard: -1,
		TmpOptions: tmpOptions(), TmpBytes: limits.TmpBytes, TmpMode: limits.TmpMode, TmpWritable: true,
		TmpMknod: eperm, RootReadOnly: true, Interfaces: slices.Clone(limits.Interfaces), EnvKeys: slices.Clone(limits.EngineEnv),
		SyscallProbes: FilteredProbes(), ProcProbes: ClosedProc(),
	}
}

// eperm is the errno mknod in /tmp gets without CAP_MKNOD, under runc
// and gVisor alike.
const eperm = 1

// PerfectGVisor is the selfcheck of a container that enforces the whole
// policy with the given memory limit under gVisor (a current runsc), as
// the runner reported it there: gVisor's kernel, no NoNewPrivs status
// line (prctl shows the bit), the policy's filter installed by the runner
// (gVisor ignores the OCI profile), no swap file and no pids limit in its
// cgroupfs (the host proves both), RLIMIT_NPROC as the program's cap, and
// /tmp's options as gVisor prints them, without nodev: mknod there is
// refused (EPERM), which the host judges instead.
func PerfectGVisor(memory int64) hello.Selfcheck {
	s := Perfect(memory)
	s.KernelRelease, s.KernelVersion = "4.19.0-gvisor", hello.GVisorKernelVersion
	s.NoNewPrivs, s.SeccompBy = -1, hello.SeccompByRunner
	s.SwapMax, s.PidsMax = -1, -1
	// RLIMIT_NPROC as the policy sets it under gVisor (--ulimit
	// nproc=64:64), which gVisor enforces for the whole sandbox.
	s.NProcSoft, s.NProcHard = limits.PIDs, limits.PIDs
	s.TmpOptions = "rw,noexec,nosuid,size=" + strconv.Itoa(limits.TmpBytes>>10) + "k,mode=" + limits.TmpMode
	return s
}

// tmpOptions are /tmp's mount options as the kernel shows a tmpfs mounted
// with the policy's: its flags, in the kernel's order, and size in KiB.
func tmpOptions() string {
	return "rw,nosuid,nodev,noexec,relatime,size=" + strconv.Itoa(limits.TmpBytes>>10) + "k"
}

// Weak is the selfcheck under a runtime that drops limits (as gVisor does
// here: /tmp executable and unbounded, no cgroups, /dev/shm writable).
func Weak() hello.Selfcheck {
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
	m := make(map[string]int, len(hello.ProcProbeFiles))
	for _, name := range hello.ProcProbeFiles {
		m[name] = 13 // EACCES
	}
	return m
}

// Hello is the runner's first frame for s, newline included.
func Hello(s hello.Selfcheck) string {
	b, err := json.Marshal(hello.Frame{V: protocol.Version, Selfcheck: &s})
	if err != nil {
		panic(err)
	}
	return string(b) + "\n"
}
