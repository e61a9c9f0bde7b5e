package attest

import (
	"fmt"
	"slices"
	"strings"
	"syscall"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol/hello"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// errnoName spells a probe's errno for people: its name where Go knows
// one, "success" for 0.
func errnoName(e int) string {
	switch {
	case e == 0:
		return "success (the call was allowed)"
	case e < 0:
		return "no answer"
	}
	return fmt.Sprintf("errno %d (%s)", e, syscall.Errno(e).Error())
}

func orNone(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return s
}

// helloJudge reads the runner's hello for one kind of proof of the
// boundary table (limits.Proof.Judge). Every runner's hello carries its
// view (hello.Selfcheck, read before it reads anything); a run sends
// its request only if every check passes, and doctor prints them all.
type helloJudge struct {
	kind string
	// judge returns what was seen and, when the boundary is not in force,
	// what is wrong, in words that name the boundary.
	judge func(s hello.Selfcheck, memory limits.Bytes) (seen, wrong string)
}

// helloJudges are the judges in the order doctor prints their checks,
// the order of the runner's account. A runtime's column in the boundary
// table picks the ones that prove it there; a test holds every Judge of
// the table to one here, and each here to a row.
var helloJudges = []helloJudge{
	{"ids", func(s hello.Selfcheck, _ limits.Bytes) (string, string) {
		seen := fmt.Sprintf("uid %d gid %d groups %v", s.UID, s.GID, s.Groups)
		ok := s.UID == limits.UID && s.GID == limits.GID
		for _, g := range s.Groups {
			ok = ok && g == limits.GID
		}
		return seen, unless(ok, "runs as "+seen+", not "+limits.User)
	}},
	{"cap-eff", func(s hello.Selfcheck, _ limits.Bytes) (string, string) {
		return "CapEff " + s.CapEff, unless(s.CapEff == limits.CapEffNone, "capabilities are not dropped (CapEff "+s.CapEff+")")
	}},
	{"kernel-linux", func(s hello.Selfcheck, _ limits.Bytes) (string, string) {
		return kernelSeen(s), unless(!s.GVisor(), "the runner sees gVisor's kernel, not the host's: the engine's default runtime is gVisor; name it (--runtime runsc)")
	}},
	{"kernel-gvisor", func(s hello.Selfcheck, _ limits.Bytes) (string, string) {
		return kernelSeen(s), unless(s.GVisor(), "the runner sees the kernel "+kernelSeen(s)+", not gVisor's: the container did not run under gVisor")
	}},
	{"status-no-new-privs", func(s hello.Selfcheck, _ limits.Bytes) (string, string) {
		return fmt.Sprintf("NoNewPrivs %d", s.NoNewPrivs), unless(s.NoNewPrivs == limits.NoNewPrivsOn, "no_new_privs is not set")
	}},
	{"prctl-no-new-privs", func(s hello.Selfcheck, _ limits.Bytes) (string, string) {
		return fmt.Sprintf("prctl(PR_GET_NO_NEW_PRIVS) %d", s.NoNewPrivsPrctl), unless(s.NoNewPrivsPrctl == limits.NoNewPrivsOn, "no_new_privs is not set")
	}},
	{"status-seccomp", func(s hello.Selfcheck, _ limits.Bytes) (string, string) {
		seen := fmt.Sprintf("Seccomp %d, installed by %s", s.Seccomp, orNone(s.SeccompBy))
		switch {
		case s.Seccomp != limits.SeccompModeFilter:
			return seen, fmt.Sprintf("no seccomp filter (Seccomp %d)", s.Seccomp)
		case s.SeccompBy != hello.SeccompByEngine:
			return seen, "the engine's runtime installed no seccomp filter (the argv's profile is not in force; the runner installed the policy's own)"
		}
		return seen, ""
	}},
	{"runner-seccomp", func(s hello.Selfcheck, _ limits.Bytes) (string, string) {
		seen := fmt.Sprintf("Seccomp %d, installed by %s", s.Seccomp, orNone(s.SeccompBy))
		return seen, unless(s.Seccomp == limits.SeccompModeFilter && s.SeccompBy != "",
			fmt.Sprintf("no seccomp filter (Seccomp %d): the runner could not install the policy's", s.Seccomp))
	}},
	{"syscall-probes", func(s hello.Selfcheck, _ limits.Bytes) (string, string) {
		var seen, wrong []string
		for _, name := range limits.SeccompProbes {
			e, ok := s.SyscallProbes[name]
			switch {
			case !ok:
				seen = append(seen, name+" not probed")
				wrong = append(wrong, name+" was not probed")
			case e != limits.FilterErrno:
				seen = append(seen, fmt.Sprintf("%s %s", name, errnoName(e)))
				wrong = append(wrong, fmt.Sprintf("%s got %s", name, errnoName(e)))
			}
		}
		if len(wrong) > 0 {
			return strings.Join(seen, ", "), fmt.Sprintf("the policy's seccomp profile is not in force (want errno %d from each probe): %s",
				limits.FilterErrno, strings.Join(wrong, ", "))
		}
		return fmt.Sprintf("%d refused syscalls answered errno %d", len(limits.SeccompProbes), limits.FilterErrno), ""
	}},
	{"proc-probes", func(s hello.Selfcheck, _ limits.Bytes) (string, string) {
		var seen, wrong []string
		for _, name := range hello.ProcProbeFiles {
			e, ok := s.ProcProbes[name]
			switch {
			case !ok:
				seen = append(seen, name+" not probed")
				wrong = append(wrong, "the runner's /proc/1/"+name+" was not probed")
			case e != int(syscall.EACCES) && e != int(syscall.EPERM):
				seen = append(seen, fmt.Sprintf("%s %s", name, errnoName(e)))
				wrong = append(wrong, fmt.Sprintf("the program could open the runner's /proc/1/%s (%s): the runner is dumpable", name, errnoName(e)))
			default:
				seen = append(seen, fmt.Sprintf("%s %s", name, syscall.Errno(e).Error()))
			}
		}
		return strings.Join(seen, ", "), strings.Join(wrong, "; ")
	}},
	{"cgroup-memory", func(s hello.Selfcheck, memory limits.Bytes) (string, string) {
		seen := fmt.Sprintf("%d bytes (cgroup v%d)", s.MemoryMax, s.CgroupVersion)
		switch {
		case s.MemoryMax < 0:
			return seen, "memory limit not visible"
		case s.MemoryMax != int64(memory):
			return seen, fmt.Sprintf("memory limit is %d bytes, want %d", s.MemoryMax, int64(memory))
		}
		return seen, ""
	}},
	{"cgroup-swap", func(s hello.Selfcheck, _ limits.Bytes) (string, string) {
		seen := fmt.Sprintf("%d bytes of swap", s.SwapMax)
		switch {
		case s.SwapMax < 0:
			return seen, "swap limit not visible"
		case s.SwapMax != 0:
			return seen, fmt.Sprintf("%d bytes of swap allowed", s.SwapMax)
		}
		return seen, ""
	}},
	{"cgroup-pids", func(s hello.Selfcheck, _ limits.Bytes) (string, string) {
		seen := fmt.Sprintf("pids.max %d", s.PidsMax)
		switch {
		case s.PidsMax < 0:
			return seen, "pids.max not visible"
		case s.PidsMax != limits.PIDs:
			return seen, fmt.Sprintf("pids.max is %d, want %d", s.PidsMax, limits.PIDs)
		}
		return seen, ""
	}},
	{"cgroup-cpu", func(s hello.Selfcheck, _ limits.Bytes) (string, string) {
		seen := "cpu.max " + s.CPUMax
		switch {
		case s.CPUMax == "":
			return seen, "cpu.max not visible"
		case s.CPUMax != limits.CPUMax:
			return seen, "cpu.max is " + s.CPUMax + ", want " + limits.CPUMax
		}
		return seen, ""
	}},
	{"rlimit-nofile", func(s hello.Selfcheck, _ limits.Bytes) (string, string) {
		got := limits.Pair(s.NoFileSoft, s.NoFileHard)
		return "nofile " + got, unless(s.NoFileSoft == limits.NoFile && s.NoFileHard == limits.NoFile, "open files limit is "+got+", want "+limits.Pair(limits.NoFile, limits.NoFile))
	}},
	{"rlimit-nproc", func(s hello.Selfcheck, _ limits.Bytes) (string, string) {
		got := limits.Pair(s.NProcSoft, s.NProcHard)
		return "nproc " + got, unless(s.NProcSoft == limits.PIDs && s.NProcHard == limits.PIDs,
			"the sandbox's task limit (RLIMIT_NPROC) is "+got+", want "+limits.Pair(limits.PIDs, limits.PIDs))
	}},
	{"rlimit-core", func(s hello.Selfcheck, _ limits.Bytes) (string, string) {
		seen := "core " + limits.Pair(s.CoreSoft, s.CoreHard)
		return seen, unless(s.CoreSoft == limits.Core && s.CoreHard == limits.Core, "core dumps allowed ("+seen+")")
	}},
	{"tmp-mount", func(s hello.Selfcheck, _ limits.Bytes) (string, string) {
		return judgeTmp(s, true)
	}},
	{"tmp-mount-mknod", func(s hello.Selfcheck, _ limits.Bytes) (string, string) {
		return judgeTmp(s, false)
	}},

	{"root-read-only", func(s hello.Selfcheck, _ limits.Bytes) (string, string) {
		return fmt.Sprintf("read-only %t", s.RootReadOnly), unless(s.RootReadOnly, "the root filesystem is writable")
	}},
	{"interfaces", func(s hello.Selfcheck, _ limits.Bytes) (string, string) {
		seen := "interfaces " + strings.Join(s.Interfaces, ",")
		return seen, unless(slices.Equal(s.Interfaces, limits.Interfaces), "network interfaces other than lo: "+strings.Join(s.Interfaces, ","))
	}},
	{"dev-shm", func(s hello.Selfcheck, _ limits.Bytes) (string, string) {
		return fmt.Sprintf("writable %t", s.DevShmWritable), unless(!s.DevShmWritable, "/dev/shm is writable")
	}},
	{"docker-socket", func(s hello.Selfcheck, _ limits.Bytes) (string, string) {
		return fmt.Sprintf("present %t", s.DockerSocket), unless(!s.DockerSocket, "a docker socket is present")
	}},
	{"env-keys", func(s hello.Selfcheck, _ limits.Bytes) (string, string) {
		var extra []string
		for _, k := range s.EnvKeys {
			if !slices.Contains(limits.EngineEnv, k) {
				extra = append(extra, k)
			}
		}
		return "keys " + strings.Join(s.EnvKeys, ","), unless(len(extra) == 0, "environment keys from outside: "+strings.Join(extra, ","))
	}},
	{"problems", func(s hello.Selfcheck, _ limits.Bytes) (string, string) {
		return "none", unless(len(s.Problems) == 0, "could not read: "+strings.Join(s.Problems, "; "))
	}},
}

func kernelSeen(s hello.Selfcheck) string {
	return fmt.Sprintf("uname %q %q", s.KernelRelease, s.KernelVersion)
}

func unless(ok bool, wrong string) string {
	if ok {
		return ""
	}
	return wrong
}
