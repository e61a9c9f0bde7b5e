package tests

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/poll"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// The boundary attacks of boundary_test.go, seccomp_test.go and
// integrity_test.go under gVisor, each asserting what gVisor answers
// where it answers otherwise than runc.

// TestRunscRootFilesystemReadOnly: gVisor checks the directory's
// permission before the mount's read-only flag, so creating a file in the
// root's root-owned directories is EACCES where runc says EROFS; making a
// directory there is EROFS, the read-only mount itself.
func TestRunscRootFilesystemReadOnly(t *testing.T) {
	e := needGVisor(t)
	t.Parallel()
	r := runscProbe(t, e, "rootfs")
	for _, p := range []string{"/probe-write", "/etc-probe", "/runner"} {
		assert.Check(t, is.Equal(r[p], "EACCES"), p)
	}
	assert.Check(t, is.Equal(r["mkdir"], "EROFS"))
}

func TestRunscTmpNoExecAndBounded(t *testing.T) {
	e := needGVisor(t)
	t.Parallel()
	r := runscProbe(t, e, "tmp")
	assert.Check(t, is.Equal(r["write"], ""), "/tmp must be writable")
	assert.Check(t, is.Equal(r["copy"], ""), "a binary can be copied to /tmp")
	assert.Check(t, is.Equal(r["exec"], "EACCES"), "but not executed from it (noexec)")
	assert.Check(t, is.Equal(r["fill_error"], "ENOSPC"), "a write past 32 MiB fails")
	filled := int64(r["fill_bytes"].(float64))
	assert.Check(t, filled <= 32<<20 && filled > 30<<20, "wrote %d bytes before ENOSPC", filled)
}

// bridgeAddr is the second engine's bridge address, where a container of
// it would reach its host.
func bridgeAddr(t *testing.T, e *secondEngine) string {
	t.Helper()
	out, err := exec.Command("ip", "-4", "-o", "addr", "show", "dev", e.bridge).Output()
	assert.NilError(t, err)
	m := regexp.MustCompile(`inet ([0-9.]+)/`).FindSubmatch(out)
	assert.Assert(t, m != nil, "no address on %s: %s", e.bridge, out)
	return string(m[1])
}

func TestRunscNoNetwork(t *testing.T) {
	e := needGVisor(t)
	t.Parallel()
	machine, own := gateway+":2375", bridgeAddr(t, e)+":2375"
	r := runscProbe(t, e, "net "+machine+" "+own)
	assert.Check(t, is.DeepEqual(r["interfaces"], []any{"lo"}))
	for _, addr := range []string{"1.1.1.1:443", machine, own} {
		assert.Check(t, is.Equal(r["connect "+addr], "ENETUNREACH"), addr)
	}
}

// TestRunscNoPrivilegeGain: setuid and setgid fail, no capability is
// held, and the filter is in force; gVisor prints no NoNewPrivs line in
// /proc/self/status, so the program asks prctl, as the hello does.
func TestRunscNoPrivilegeGain(t *testing.T) {
	e := needGVisor(t)
	t.Parallel()
	r := runscProbe(t, e, "privs")
	assert.Check(t, is.Equal(r["setuid0"], "EPERM"))
	assert.Check(t, is.Equal(r["setgid0"], "EPERM"))
	assert.Check(t, is.Equal(r["CapEff"], "0000000000000000"))
	assert.Check(t, is.Equal(r["CapPrm"], "0000000000000000"))
	assert.Check(t, is.Equal(r["CapBnd"], "0000000000000000"))
	assert.Check(t, is.Equal(r["NoNewPrivs"], ""), "gVisor prints no NoNewPrivs line")
	assert.Check(t, is.Equal(r["Seccomp"], "2"), "seccomp in filter mode")

	p := runscPy(t, e, `import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
PR_GET_NO_NEW_PRIVS, PR_GET_SECCOMP = 39, 21
print(libc.prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), libc.prctl(PR_GET_SECCOMP, 0, 0, 0, 0))
try:
    os.setuid(0)
except PermissionError:
    print("setuid EPERM")`)
	assert.Equal(t, p.code, 0, p.stdout+p.stderr)
	assert.Check(t, is.Equal(p.res.Output, "1 2\nsetuid EPERM\n"), "prctl no_new_privs 1, seccomp mode 2")
}

func TestRunscUser65534(t *testing.T) {
	e := needGVisor(t)
	t.Parallel()
	r := runscProbe(t, e, "privs")
	assert.Check(t, is.Equal(r["uid"], float64(65534)))
	assert.Check(t, is.Equal(r["euid"], float64(65534)))
	assert.Check(t, is.Equal(r["gid"], float64(65534)))
	assert.Check(t, is.DeepEqual(r["groups"], []any{float64(65534)}))
}

func TestRunscNoHostEnvironment(t *testing.T) {
	e := needGVisor(t)
	t.Parallel()
	imageOnSecond(t, e, probeImage)
	r := underRunsc(t, e, []string{"SYNAPSE_SENTINEL=" + sentinel, "AWS_SECRET_ACCESS_KEY=" + sentinel}, "",
		"run", "--image", probeImage, "--code", "env", "--", "/probe")
	assert.Equal(t, r.code, 0, r.stderr)
	assert.Check(t, !strings.Contains(r.res.Output, sentinel), r.res.Output)
	assert.Check(t, is.Contains(r.res.Output, "PATH="), "the probe did print its environment")
}

func TestRunscNoDockerSocket(t *testing.T) {
	e := needGVisor(t)
	t.Parallel()
	r := runscProbe(t, e, "socket")
	for _, p := range []string{"/var/run/docker.sock", "/run/docker.sock"} {
		assert.Check(t, is.Equal(r[p], "ENOENT"), p)
		assert.Check(t, is.Equal(r["dial "+p], "ENOENT"), p)
	}
}

// TestRunscDevShmNotWritable: under gVisor /dev/shm exists and is not
// writable by the sandbox user (EACCES), where runc has none (ENOENT).
func TestRunscDevShmNotWritable(t *testing.T) {
	e := needGVisor(t)
	t.Parallel()
	r := runscProbe(t, e, "shm")
	assert.Check(t, is.Equal(r["write"], "EACCES"))
}

// TestRunscCgroupLimits: gVisor's own cgroupfs (v1) shows the memory
// limit and the CPU quota, no swap file, and no pids limit: the program's
// task cap is RLIMIT_NPROC (TestRunscRlimits, TestRunscForkBomb), and the
// host's (TestRunscHostCgroupAndOneCPU).
func TestRunscCgroupLimits(t *testing.T) {
	e := needGVisor(t)
	t.Parallel()
	r := runscProbe(t, e, "cgroup", "--memory", "256m")
	str := func(k string) string { s, _ := r[k].(string); return s }
	assert.Check(t, is.Equal(str("/sys/fs/cgroup/memory/memory.limit_in_bytes"), strconv.Itoa(256<<20)))
	_, memsw := r["/sys/fs/cgroup/memory/memory.memsw.limit_in_bytes"]
	assert.Check(t, !memsw, "gVisor offers no swap file")
	assert.Check(t, is.Equal(str("/sys/fs/cgroup/pids/pids.max"), "max"), "gVisor shows no pids limit")
	cpuMax := str("/sys/fs/cgroup/cpu/cpu.cfs_quota_us") + " " + str("/sys/fs/cgroup/cpu/cpu.cfs_period_us")
	assert.Check(t, is.Equal(cpuMax, "100000 100000"))
}

// TestRunscRlimits: the open files and core limits as under runc, and
// RLIMIT_NPROC, gVisor's count of the sandbox's tasks, at 64.
func TestRunscRlimits(t *testing.T) {
	e := needGVisor(t)
	t.Parallel()
	r := runscProbe(t, e, "limits")
	limits, _ := r["limits"].(string)
	assert.Check(t, regexp.MustCompile(`(?m)^Max open files\s+64\s+64\s+files`).MatchString(limits), limits)
	assert.Check(t, regexp.MustCompile(`(?m)^Max core file size\s+0\s+0\s+bytes`).MatchString(limits), limits)
	assert.Check(t, regexp.MustCompile(`(?m)^Max processes\s+64\s+64\s+processes`).MatchString(limits), limits)
}

func TestRunscOpenFiles(t *testing.T) {
	e := needGVisor(t)
	t.Parallel()
	r := runscProbe(t, e, "nofile")
	assert.Check(t, is.Equal(r["error"], "EMFILE"))
	assert.Check(t, r["highest_fd"].(float64) <= 63, "fd %v opened; the 65th file must fail", r["highest_fd"])
	assert.Check(t, r["opened"].(float64) > 10, "the probe did open files: %v", r["opened"])
}

// TestRunscSeccompRefusesTheKernelSurfaces: gVisor ignores the OCI
// profile; the filter the runner installed itself refuses each kernel
// surface with the policy's own errno, and clone into a new user
// namespace.
func TestRunscSeccompRefusesTheKernelSurfaces(t *testing.T) {
	e := needGVisor(t)
	t.Parallel()
	r := runscProbe(t, e, "syscalls")
	filtered := "errno " + strconv.Itoa(limits.FilterErrno)
	for _, name := range []string{"io_uring_setup", "ptrace", "personality", "userfaultfd", "bpf", "perf_event_open",
		"keyctl", "add_key", "unshare", "mount", "kexec_load", "name_to_handle_at", "open_by_handle_at"} {
		assert.Check(t, is.Equal(r[name], filtered), name)
	}
	assert.Check(t, is.Equal(r["clone_newuser"], "errno 1"), "clone(CLONE_NEWUSER) gets EPERM")
	assert.Check(t, is.Equal(r["clone3"], "errno 38"), "clone3 gets ENOSYS")
}

// TestRunscSocketFamilies: the socket families the filter refuses under
// runc get its errno under gVisor too.
func TestRunscSocketFamilies(t *testing.T) {
	e := needGVisor(t)
	t.Parallel()
	r := runscPy(t, e, `import json, socket
out = {}
for name, fam, typ, proto in [("unix", socket.AF_UNIX, socket.SOCK_STREAM, 0), ("inet", socket.AF_INET, socket.SOCK_STREAM, 0),
        ("alg", socket.AF_ALG, socket.SOCK_SEQPACKET, 0), ("vsock", socket.AF_VSOCK, socket.SOCK_STREAM, 0),
        ("packet", socket.AF_PACKET, socket.SOCK_RAW, 0), ("netlink_audit", socket.AF_NETLINK, socket.SOCK_RAW, 9)]:
    try:
        socket.socket(fam, typ, proto).close()
        out[name] = 0
    except OSError as e:
        out[name] = e.errno
print(json.dumps(out, sort_keys=True))`)
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	var got map[string]int
	assert.NilError(t, json.Unmarshal([]byte(r.res.Output), &got), r.res.Output)
	f := limits.FilterErrno
	assert.Check(t, is.DeepEqual(got, map[string]int{"unix": 0, "inet": 0, "alg": f, "vsock": f, "packet": f, "netlink_audit": f}))
}

// TestRunscRunnerProcIsClosed: under gVisor too the program cannot open
// the runner's (PID 1) or any other process's memory, descriptors,
// environment or OOM score.
func TestRunscRunnerProcIsClosed(t *testing.T) {
	e := needGVisor(t)
	t.Parallel()
	r := runscPy(t, e, procAttack)
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	var got map[string]string
	assert.NilError(t, json.Unmarshal([]byte(r.res.Output), &got), r.res.Output)
	t.Logf("from the program under runsc: %v", got)
	for _, name := range procAttackFiles {
		for _, who := range []string{"1/", "other/"} {
			v, ok := got[who+name]
			if !ok && who == "other/" {
				continue // under gVisor the runner forks no decoy: no other process to try
			}
			// gVisor resolves another process's descriptor before the
			// permission check: the decoy, which holds none, says ENOENT.
			closed := v == "EACCES" || v == "EPERM" || (who == "other/" && strings.HasPrefix(name, "fd/") && v == "ENOENT")
			assert.Check(t, closed, "/proc/%s%s: %q", who, name, v)
		}
	}
}

// TestRunscForkBomb: the program fills the sandbox's task table. The
// program's tasks stop at RLIMIT_NPROC (fork: EAGAIN before 64), and
// a classic fork bomb is the program's failure, never the sandbox's: the
// sandbox survives it and the run returns its response.
func TestRunscForkBomb(t *testing.T) {
	e := needGVisor(t)
	t.Parallel()
	for i := 0; i < 4; i++ {
		start := time.Now()
		p := runscPy(t, e, "import os\nwhile True:\n    os.fork()", "--timeout", "20s")
		t.Logf("fork bomb %d: verdict %s, exit %d in %s: %s", i, p.res.Verdict, p.code, time.Since(start).Round(time.Millisecond), strings.TrimSpace(p.stderr))
		assert.Check(t, p.res.Verdict == "ok" || p.res.Verdict == "program_error" || p.res.Verdict == "timeout", "verdict %q: %s", p.res.Verdict, p.stdout)
		assert.Check(t, p.res.Sandboxed, p.stdout)
	}
	// The sandbox's task table held: a full table of sleepers, then output.
	p := runscPy(t, e, `import os, sys, time
kids = 0
while True:
    try:
        pid = os.fork()
    except BlockingIOError:
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    kids += 1
print("kids", kids, flush=True)
os._exit(0)`, "--timeout", "20s")
	assert.Check(t, is.Equal(p.code, 0), p.stdout+p.stderr)
	assert.Check(t, is.Equal(p.res.Verdict, "ok"))
	kids, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(p.res.Output, "kids ")))
	assert.Check(t, kids > 0 && kids < limits.PIDs, "%q", p.res.Output)

	// The raw fork(2) of the probe, last: it stops at EAGAIN before 64.
	r := runscProbe(t, e, "forkbomb")
	assert.Check(t, is.Equal(r["error"], "EAGAIN"), "fork must fail at the task limit")
	forked := int(r["forked"].(float64))
	assert.Check(t, forked > 0 && forked < limits.PIDs, "forked %d children", forked)
}

func TestRunscOutputCap(t *testing.T) {
	e := needGVisor(t)
	t.Parallel()
	assertOutputCapped(t, runscStarlark(t, e, printMany))
}

// TestRunscOOM: 512 MiB under a 128 MiB limit is oom, exit 137, for a
// Starlark string and a Python one.
func TestRunscOOM(t *testing.T) {
	e := needGVisor(t)
	t.Parallel()
	for name, run := range map[string]func() toolResult{
		"starlark": func() toolResult {
			return runscStarlark(t, e, "x = 'x' * (512 << 20)", "--memory", "128m", "--timeout", "30s")
		},
		"python": func() toolResult {
			return runscPy(t, e, "x = b'x' * (512 << 20)\nprint(len(x))", "--memory", "128m", "--timeout", "30s")
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			r := run()
			t.Logf("%s in %s: %s", r.res.Verdict, time.Since(start).Round(time.Millisecond), strings.TrimSpace(r.stderr))
			assert.Check(t, is.Equal(r.code, 137), r.stdout+r.stderr)
			assert.Check(t, is.Equal(r.res.Verdict, "oom"))
			assert.Check(t, is.Contains(r.stderr, "memory exhausted"))
		})
	}
}

// TestRunscTimeoutLeavesNoContainer: a Starlark spin and an exec child
// asleep end at the timeout, exit 124, their output discarded, their
// container gone from the second engine (underRunsc checks).
func TestRunscTimeoutLeavesNoContainer(t *testing.T) {
	e := needGVisor(t)
	t.Parallel()
	imageOnSecond(t, e, probeImage)
	for name, args := range map[string][]string{
		"starlark spin": {"--image", refImage, "--timeout", "3s", "--code", "while True:\n  pass"},
		"exec sleep":    {"--image", probeImage, "--timeout", "3s", "--code", "sleep", "--", "/probe"},
	} {
		start := time.Now()
		r := underRunsc(t, e, nil, "", "run", args...)
		took := time.Since(start)
		assert.Check(t, is.Equal(r.code, 124), "%s: %s", name, r.stderr)
		assert.Check(t, is.Equal(r.res.Verdict, "timeout"), name)
		assert.Check(t, is.Equal(r.res.Output, ""), "%s: output is discarded on timeout", name)
		assert.Check(t, took < timedOutWithin, "%s took %s", name, took)
		assert.Check(t, r.res.RunID != "", "%s: no run id", name)
	}
}

// TestRunscCPUTimeLimit: --cpu-time 1s stops a Starlark spin and a
// Python one (cpu_timeout, exit 124), by gVisor's count at most 1.2 s of
// the host's CPU; a sleeper ends ok.
func TestRunscCPUTimeLimit(t *testing.T) {
	e := needGVisor(t)
	t.Parallel()
	for name, run := range map[string]func() toolResult{
		"starlark": func() toolResult {
			return runscStarlark(t, e, "while True:\n  pass", "--cpu-time", "1s", "--timeout", "10s")
		},
		"python": func() toolResult {
			return runscPy(t, e, "while True:\n    pass", "--cpu-time", "1s", "--timeout", "10s")
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := run()
			assert.Check(t, is.Equal(r.code, 124), r.stdout+r.stderr)
			assert.Check(t, is.Equal(r.res.Verdict, "cpu_timeout"))
			if assert.Check(t, r.res.Usage.CPUMS != nil, r.stdout) {
				t.Logf("stopped at cpu_ms %d", *r.res.Usage.CPUMS)
				// gVisor's CPU counter, which the runner stops on, runs
				// ahead of the host's quota (the host cuts the claim to
				// it): the stop may come early, never late.
				assert.Check(t, *r.res.Usage.CPUMS >= 700 && *r.res.Usage.CPUMS <= 1200, "cpu_ms %d", *r.res.Usage.CPUMS)
			}
		})
	}
	t.Run("sleeper", func(t *testing.T) {
		t.Parallel()
		r := runscPy(t, e, "import time\ntime.sleep(3)\nprint('awake')", "--cpu-time", "1s", "--timeout", "10s")
		assert.Check(t, is.Equal(r.code, 0), r.stdout+r.stderr)
		assert.Check(t, is.Equal(r.res.Output, "awake\n"))
	})
}

// TestRunscUsage: a busy second of Python reports its CPU time (gVisor's
// cpuacct.usage); the memory peak, which gVisor's cgroupfs does not keep,
// is the program's own maximum resident set: at least the 100 MiB it
// holds, at most the limit.
func TestRunscUsage(t *testing.T) {
	e := needGVisor(t)
	t.Parallel()
	r := runscPy(t, e, "import time\nb = b'x' * (100 << 20)\nwhile time.process_time() < 1.0:\n    pass\nprint(time.process_time())",
		"--memory", "256m")
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	own, err := strconv.ParseFloat(strings.TrimSpace(r.res.Output), 64)
	assert.NilError(t, err)
	assert.Assert(t, r.res.Usage.CPUMS != nil, r.stdout)
	got := float64(*r.res.Usage.CPUMS)
	t.Logf("cpu_ms %v, the program's own process_time %.0f ms; %s", got, own*1000, r.stdout)
	assert.Check(t, got >= 0.9*own*1000 && got <= 1.2*own*1000, "cpu_ms %v against %.0f ms", got, own*1000)
	if assert.Check(t, r.res.Usage.MemoryPeakBytes != nil, r.stdout) {
		peak := *r.res.Usage.MemoryPeakBytes
		assert.Check(t, peak >= 100<<20 && peak <= 256<<20, "memory_peak_bytes %d", peak)
	}
}

// TestRunscHostCgroupAndOneCPU is not parallel: it measures CPU time. What
// gVisor hides inside, the host enforces on the sandbox's own cgroup: the
// memory limit with as much memory+swap, the host's task limit
// (limits.GVisorHostPIDs) and one CPU of quota, which four busy processes
// meet at about one CPU-second per second of wall time (on two cores
// without it, about two).
func TestRunscHostCgroupAndOneCPU(t *testing.T) {
	e := needGVisor(t)
	imageOnSecond(t, e, pythonImage)
	name := "synapse-runsc-cpu-" + randomHex()
	src := busyWorkers(8)
	cmd := exec.Command(toolBin, "run", "--context", e.context, "--runtime", currentRunsc, "--image", pythonImage, "--name", name,
		"--memory", "256m", "--timeout", "30s", "--code", src, "--", "python3", "-")
	cmd.Env = append(cmd.Environ(), e.env()...)
	var stdout strings.Builder
	cmd.Stdout = &stdout
	assert.NilError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	var id, cpuFile string
	poll.WaitOn(t, func(poll.LogT) poll.Result {
		out, err := e.docker("inspect", "--format", "{{.Id}}", name)
		if err != nil {
			return poll.Continue("not created")
		}
		id = strings.TrimSpace(string(out))
		if cpuFile, _ = hostCgroupFiles(id); cpuFile == "" {
			return poll.Continue("no host cgroup for %s", id)
		}
		return poll.Success()
	}, poll.WithTimeout(20*time.Second), poll.WithDelay(50*time.Millisecond))
	host := func(controller, file string) string {
		b, err := os.ReadFile(filepath.Join(hostCgroupDir(t, controller, id), file))
		assert.NilError(t, err)
		return strings.TrimSpace(string(b))
	}
	assert.Check(t, is.Equal(host("memory", "memory.limit_in_bytes"), strconv.Itoa(256<<20)))
	assert.Check(t, is.Equal(host("memory", "memory.memsw.limit_in_bytes"), strconv.Itoa(256<<20)), "no swap")
	assert.Check(t, is.Equal(host("pids", "pids.max"), strconv.Itoa(limits.GVisorHostPIDs)))
	quota := host("cpu", "cpu.cfs_quota_us") + " " + host("cpu", "cpu.cfs_period_us")
	assert.Check(t, is.Equal(quota, "100000 100000"))

	// Once the workers are busy, sample the host's count of the sandbox's
	// CPU time over 2 s.
	poll.WaitOn(t, func(poll.LogT) poll.Result {
		if readInt(t, cpuFile) > 2e9 {
			return poll.Success()
		}
		return poll.Continue("not busy yet")
	}, poll.WithTimeout(20*time.Second), poll.WithDelay(100*time.Millisecond))
	c0, t0 := readInt(t, cpuFile), time.Now()
	time.Sleep(2 * time.Second)
	c1, t1 := readInt(t, cpuFile), time.Now()
	rate := float64(c1-c0) / float64(t1.Sub(t0).Nanoseconds())
	t.Logf("four busy processes under runsc: %.2f CPU-s per s on the host's count (%s)", rate, cpuFile)
	assert.Check(t, rate < 1.3, "%.2f CPUs used", rate)
	// Only that they spun at all: a machine busy with other work gives
	// them less than their quota.
	assert.Check(t, rate > 0.1, "the workers did spin: %.2f CPUs", rate)

	assert.Check(t, cmd.Wait(), stdout.String())
	var res runJSON
	assert.NilError(t, json.Unmarshal([]byte(stdout.String()), &res), stdout.String())
	assert.Check(t, is.Equal(res.Verdict, "ok"))
	assert.Check(t, is.Equal(res.Output, "done\n"))
	assert.Check(t, is.Len(labelled(t, e, "="+res.RunID), 0))
}

// hostCgroupDir is a container's cgroup directory of one v1 controller on
// the host: below the engine's cgroup parent, which may itself sit deeper
// than the hierarchy's root (runsc places its memory cgroup below its own).
func hostCgroupDir(t *testing.T, controller, id string) string {
	t.Helper()
	for pattern := "/sys/fs/cgroup/" + controller + "/*/"; strings.Count(pattern, "*") <= 4; pattern += "*/" {
		if m, _ := filepath.Glob(pattern + id); len(m) == 1 {
			return m[0]
		}
	}
	t.Fatalf("no %s cgroup of %s on the host", controller, id)
	return ""
}
