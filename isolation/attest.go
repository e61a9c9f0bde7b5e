package isolation

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"syscall"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// dockerEnv is the environment Docker itself gives every container; any
// other key came from somewhere else (a -e, a proxy setting).
var dockerEnv = []string{"HOME", "HOSTNAME", "PATH"}

// wantCPUMax is one CPU as cgroup v2's cpu.max spells it (quota period, µs).
const wantCPUMax = "100000 100000"

// wantTmpMode is /tmp's mode as the tmpfs option mode=1777 sets it: every
// user may create files, none may remove another's.
const wantTmpMode = "1777"

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

// attestCheck is one boundary as the runner sees it from inside. Every
// runner's hello carries its view (protocol.Selfcheck, read before it
// reads anything); Run sends the request only if every check passes, and
// doctor prints them all.
type attestCheck struct {
	name   string
	proves string
	// judge returns what was seen and, when the boundary is not in force,
	// what is wrong, in words that name the boundary.
	judge func(s protocol.Selfcheck, memory limits.Bytes) (seen, wrong string)
}

var attestChecks = []attestCheck{
	{"uid/gid", "the program runs as 65534:65534 with no other group", func(s protocol.Selfcheck, _ limits.Bytes) (string, string) {
		seen := fmt.Sprintf("uid %d gid %d groups %v", s.UID, s.GID, s.Groups)
		ok := s.UID == limits.UID && s.GID == limits.GID
		for _, g := range s.Groups {
			ok = ok && g == limits.GID
		}
		return seen, unless(ok, "runs as "+seen+", not 65534:65534")
	}},
	{"capabilities", "no capability is effective", func(s protocol.Selfcheck, _ limits.Bytes) (string, string) {
		return "CapEff " + s.CapEff, unless(s.CapEff == "0000000000000000", "capabilities are not dropped (CapEff "+s.CapEff+")")
	}},
	{"no new privileges", "setuid binaries cannot raise privileges", func(s protocol.Selfcheck, _ limits.Bytes) (string, string) {
		return fmt.Sprintf("NoNewPrivs %d", s.NoNewPrivs), unless(s.NoNewPrivs == 1, "no_new_privs is not set")
	}},
	{"seccomp", "a seccomp filter is in force", func(s protocol.Selfcheck, _ limits.Bytes) (string, string) {
		return fmt.Sprintf("Seccomp %d", s.Seccomp), unless(s.Seccomp == 2, fmt.Sprintf("no seccomp filter (Seccomp %d)", s.Seccomp))
	}},
	{"syscall filter", "the policy's seccomp allowlist is the filter in force", func(s protocol.Selfcheck, _ limits.Bytes) (string, string) {
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
	{"runner /proc", "the program cannot open the runner's memory, descriptors, environment or OOM score", func(s protocol.Selfcheck, _ limits.Bytes) (string, string) {
		var seen, wrong []string
		for _, name := range protocol.ProcProbeFiles {
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
	{"memory", "the cgroup memory limit is the planned one", func(s protocol.Selfcheck, memory limits.Bytes) (string, string) {
		seen := fmt.Sprintf("%d bytes (cgroup v%d)", s.MemoryMax, s.CgroupVersion)
		switch {
		case s.MemoryMax < 0:
			return seen, "memory limit not visible"
		case s.MemoryMax != int64(memory):
			return seen, fmt.Sprintf("memory limit is %d bytes, want %d", s.MemoryMax, int64(memory))
		}
		return seen, ""
	}},
	{"swap", "the program gets no swap", func(s protocol.Selfcheck, _ limits.Bytes) (string, string) {
		seen := fmt.Sprintf("%d bytes of swap", s.SwapMax)
		switch {
		case s.SwapMax < 0:
			return seen, "swap limit not visible"
		case s.SwapMax != 0:
			return seen, fmt.Sprintf("%d bytes of swap allowed", s.SwapMax)
		}
		return seen, ""
	}},
	{"pids", "at most 64 tasks", func(s protocol.Selfcheck, _ limits.Bytes) (string, string) {
		seen := fmt.Sprintf("pids.max %d", s.PidsMax)
		switch {
		case s.PidsMax < 0:
			return seen, "pids.max not visible"
		case s.PidsMax != limits.PIDs:
			return seen, fmt.Sprintf("pids.max is %d, want %d", s.PidsMax, limits.PIDs)
		}
		return seen, ""
	}},
	{"cpu", "one CPU of quota", func(s protocol.Selfcheck, _ limits.Bytes) (string, string) {
		seen := "cpu.max " + s.CPUMax
		switch {
		case s.CPUMax == "":
			return seen, "cpu.max not visible"
		case s.CPUMax != wantCPUMax:
			return seen, "cpu.max is " + s.CPUMax + ", want " + wantCPUMax
		}
		return seen, ""
	}},
	{"open files", "at most 64 open files", func(s protocol.Selfcheck, _ limits.Bytes) (string, string) {
		seen := fmt.Sprintf("nofile %d:%d", s.NoFileSoft, s.NoFileHard)
		return seen, unless(s.NoFileSoft == limits.NoFile && s.NoFileHard == limits.NoFile, "open files limit is "+seen[7:]+", want 64:64")
	}},
	{"core dumps", "no core dumps", func(s protocol.Selfcheck, _ limits.Bytes) (string, string) {
		seen := fmt.Sprintf("core %d:%d", s.CoreSoft, s.CoreHard)
		return seen, unless(s.CoreSoft == 0 && s.CoreHard == 0, "core dumps allowed ("+seen+")")
	}},
	{"/tmp", "/tmp is a 32 MiB tmpfs, writable by the sandbox user (1777), without exec, setuid or devices", func(s protocol.Selfcheck, _ limits.Bytes) (string, string) {
		seen := fmt.Sprintf("%s, %d bytes, mode %s, writable %t", s.TmpOptions, s.TmpBytes, s.TmpMode, s.TmpWritable)
		opts := strings.Split(s.TmpOptions, ",")
		var wrong []string
		if s.TmpOptions == "" {
			wrong = append(wrong, "/tmp is not its own mount")
		}
		for _, o := range []struct{ opt, msg string }{{"noexec", "/tmp is executable"}, {"nosuid", "/tmp honours setuid"}, {"nodev", "/tmp allows devices"}} {
			if s.TmpOptions != "" && !slices.Contains(opts, o.opt) {
				wrong = append(wrong, o.msg)
			}
		}
		if s.TmpBytes != limits.TmpBytes {
			wrong = append(wrong, fmt.Sprintf("/tmp is %d bytes, want %d", s.TmpBytes, limits.TmpBytes))
		}
		if s.TmpMode != wantTmpMode || !s.TmpWritable {
			wrong = append(wrong, fmt.Sprintf("/tmp is mode %s and writable %t, want %s and writable: "+
				"the image carries its own /tmp, whose mode docker keeps over the tmpfs; "+
				"build the image without /tmp, or with /tmp mode 1777", orNone(s.TmpMode), s.TmpWritable, wantTmpMode))
		}
		return seen, strings.Join(wrong, "; ")
	}},
	{"read-only root", "the root filesystem cannot be written", func(s protocol.Selfcheck, _ limits.Bytes) (string, string) {
		return fmt.Sprintf("read-only %t", s.RootReadOnly), unless(s.RootReadOnly, "the root filesystem is writable")
	}},
	{"network", "no network interface but loopback", func(s protocol.Selfcheck, _ limits.Bytes) (string, string) {
		seen := "interfaces " + strings.Join(s.Interfaces, ",")
		return seen, unless(slices.Equal(s.Interfaces, []string{"lo"}), "network interfaces other than lo: "+strings.Join(s.Interfaces, ","))
	}},
	{"/dev/shm", "no second writable area", func(s protocol.Selfcheck, _ limits.Bytes) (string, string) {
		return fmt.Sprintf("writable %t", s.DevShmWritable), unless(!s.DevShmWritable, "/dev/shm is writable")
	}},
	{"docker socket", "no way to the Docker daemon", func(s protocol.Selfcheck, _ limits.Bytes) (string, string) {
		return fmt.Sprintf("present %t", s.DockerSocket), unless(!s.DockerSocket, "a docker socket is present")
	}},
	{"environment", "nothing of the host's environment", func(s protocol.Selfcheck, _ limits.Bytes) (string, string) {
		var extra []string
		for _, k := range s.EnvKeys {
			if !slices.Contains(dockerEnv, k) {
				extra = append(extra, k)
			}
		}
		return "keys " + strings.Join(s.EnvKeys, ","), unless(len(extra) == 0, "environment keys from outside: "+strings.Join(extra, ","))
	}},
	{"selfcheck problems", "every value above could be read", func(s protocol.Selfcheck, _ limits.Bytes) (string, string) {
		return "none", unless(len(s.Problems) == 0, "could not read: "+strings.Join(s.Problems, "; "))
	}},
}

func unless(ok bool, wrong string) string {
	if ok {
		return ""
	}
	return wrong
}

// attest judges the runner's view against the planned memory limit and
// the fixed policy: one Check per boundary.
func attest(s protocol.Selfcheck, memory limits.Bytes) []Check {
	cs := make([]Check, 0, len(attestChecks))
	for _, c := range attestChecks {
		seen, wrong := c.judge(s, memory)
		ch := pass(c.name, seen)
		if wrong != "" {
			ch = fail(c.name, wrong+" (seen: "+seen+")")
		}
		ch.Proves = c.proves
		cs = append(cs, ch)
	}
	return cs
}

// attestationError names every boundary the runner saw out of force, or
// returns nil when all hold.
func attestationError(s *protocol.Selfcheck, lim limits.Config) error {
	var wrong []string
	for _, c := range attestChecks {
		if _, w := c.judge(*s, lim.Memory); w != "" {
			wrong = append(wrong, w)
		}
	}
	if lim.CPUTime > 0 && !s.CPUCounter {
		// The runner would have nothing to count the limit on.
		wrong = append(wrong, "the runner cannot read its cgroup's CPU counter, so the CPU-time limit cannot be enforced")
	}
	if len(wrong) == 0 {
		return nil
	}
	return &Error{Verdict: SandboxFailure, Err: fmt.Errorf("the container does not enforce the policy: %s; the program was never sent", strings.Join(wrong, "; "))}
}

// selfcheckChecks runs the image's --selfcheck through Run, so under the
// exact argv of run, and lists each attestation check.
func selfcheckChecks(ctx context.Context, o Options) []Check {
	o.selfcheck, o.Exec = true, nil
	res, err := Run(ctx, Request{}, o)
	if res.Selfcheck == nil {
		if err == nil {
			err = fmt.Errorf("the image's runner returned no selfcheck report")
		}
		return []Check{fail("selfcheck", err.Error())}
	}
	// Run planned with these limits, so they resolve without error.
	lim, _ := o.Limits.Resolve()
	return attest(*res.Selfcheck, lim.Memory)
}
