package isolation

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// dockerEnv is the environment Docker itself gives every container; any
// other key came from somewhere else (a -e, a proxy setting).
var dockerEnv = []string{"HOME", "HOSTNAME", "PATH"}

// selfcheckChecks runs the image's --selfcheck through Run, so under the
// exact argv of run, and compares each observed value with the policy.
func selfcheckChecks(ctx context.Context, o Options) []Check {
	o.Selfcheck, o.Exec = true, nil
	res, err := Run(ctx, Request{}, o)
	if err != nil {
		return []Check{fail("selfcheck", err.Error())}
	}
	if res.Selfcheck == nil {
		return []Check{fail("selfcheck", "the image's runner returned no selfcheck report")}
	}
	mem := o.Limits.Memory
	if mem == 0 {
		mem = limits.DefaultMemory
	}
	return compareSelfcheck(*res.Selfcheck, mem)
}

// compareSelfcheck judges a selfcheck report against the policy.
func compareSelfcheck(s protocol.Selfcheck, memory limits.Bytes) []Check {
	var cs []Check
	expect := func(name string, ok bool, got string, want string) {
		if ok {
			cs = append(cs, pass(name, got))
		} else {
			cs = append(cs, fail(name, fmt.Sprintf("%s, want %s", got, want)))
		}
	}
	groupsOK := true
	for _, g := range s.Groups {
		groupsOK = groupsOK && g == limits.GID
	}
	expect("uid/gid", s.UID == limits.UID && s.GID == limits.GID && groupsOK,
		fmt.Sprintf("uid %d gid %d groups %v", s.UID, s.GID, s.Groups), "65534 65534 [65534]")
	expect("capabilities", s.CapEff == "0000000000000000", "CapEff "+s.CapEff, "0000000000000000")
	expect("no new privileges", s.NoNewPrivs == 1, fmt.Sprintf("NoNewPrivs %d", s.NoNewPrivs), "1")
	expect("seccomp", s.Seccomp == 2, fmt.Sprintf("Seccomp %d", s.Seccomp), "2 (filter)")
	expect("memory", s.MemoryMax == int64(memory), fmt.Sprintf("%d bytes (cgroup v%d)", s.MemoryMax, s.CgroupVersion),
		fmt.Sprintf("%d", int64(memory)))
	expect("swap", s.SwapMax == 0, fmt.Sprintf("%d bytes of swap", s.SwapMax), "0")
	expect("pids", s.PidsMax == limits.PIDs, fmt.Sprintf("pids.max %d", s.PidsMax), fmt.Sprint(limits.PIDs))
	expect("cpu", s.CPUMax == "100000 100000", "cpu.max "+s.CPUMax, "100000 100000")
	expect("open files", s.NoFileSoft == limits.NoFile && s.NoFileHard == limits.NoFile,
		fmt.Sprintf("nofile %d:%d", s.NoFileSoft, s.NoFileHard), "64:64")
	expect("core dumps", s.CoreSoft == 0 && s.CoreHard == 0, fmt.Sprintf("core %d:%d", s.CoreSoft, s.CoreHard), "0:0")
	opts := strings.Split(s.TmpOptions, ",")
	tmpOK := slices.Contains(opts, "noexec") && slices.Contains(opts, "nosuid") && slices.Contains(opts, "nodev") &&
		s.TmpBytes == limits.TmpBytes
	expect("/tmp", tmpOK, fmt.Sprintf("%s, %d bytes", s.TmpOptions, s.TmpBytes), "noexec,nosuid,nodev, 33554432 bytes")
	expect("read-only root", s.RootReadOnly, fmt.Sprintf("read-only %t", s.RootReadOnly), "true")
	expect("network", slices.Equal(s.Interfaces, []string{"lo"}), "interfaces "+strings.Join(s.Interfaces, ","), "lo only")
	expect("/dev/shm", !s.DevShmWritable, fmt.Sprintf("writable %t", s.DevShmWritable), "not writable")
	expect("docker socket", !s.DockerSocket, fmt.Sprintf("present %t", s.DockerSocket), "absent")
	var extra []string
	for _, k := range s.EnvKeys {
		if !slices.Contains(dockerEnv, k) {
			extra = append(extra, k)
		}
	}
	expect("environment", len(extra) == 0, "keys "+strings.Join(s.EnvKeys, ","), "only "+strings.Join(dockerEnv, ","))
	if len(s.Problems) > 0 {
		cs = append(cs, fail("selfcheck problems", strings.Join(s.Problems, "; ")))
	}
	return cs
}
