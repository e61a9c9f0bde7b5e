package tests

import (
	"encoding/json"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

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
