package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/hello"
)

// TestSelfcheckCgroupGVisor: gVisor's cgroupfs as a container given
// --memory 512m --cpus 1 under runsc sees it (recorded there): no memsw
// file, no pids limit of its own. Seen by gVisor's kernel, the missing
// swap file is not read and not a problem (the host proves the swap cap);
// seen by any other kernel, the same files lack the swap limit, a problem.
func TestSelfcheckCgroupGVisor(t *testing.T) {
	var problems []string
	problem := func(what string, err error) { problems = append(problems, what+": "+err.Error()) }
	s := hello.Selfcheck{KernelVersion: hello.GVisorKernelVersion, SwapMax: -1}
	readCgroup(newCgroup("testdata/cgroup-gvisor"), &s, problem)
	assert.Check(t, is.Len(problems, 0))
	assert.Check(t, is.DeepEqual(s, hello.Selfcheck{
		KernelVersion: hello.GVisorKernelVersion,
		CgroupVersion: 1, MemoryMax: 512 << 20, SwapMax: -1, PidsMax: -1, CPUMax: "100000 100000", CPUCounter: true,
	}))

	s = hello.Selfcheck{KernelVersion: "#1 SMP PREEMPT_DYNAMIC Debian 6.1.0", SwapMax: -1}
	readCgroup(newCgroup("testdata/cgroup-gvisor"), &s, problem)
	assert.Check(t, is.Equal(s.SwapMax, int64(-1)))
	assert.Check(t, is.Len(problems, 1))
	assert.Check(t, is.Contains(strings.Join(problems, "\n"), "memory.memsw.limit_in_bytes: "))
}

// TestReadKernel: uname's release and version are the kernel's own, as
// /proc/sys/kernel shows them.
func TestReadKernel(t *testing.T) {
	var s hello.Selfcheck
	readKernel(&s, func(what string, err error) { t.Errorf("%s: %v", what, err) })
	release, err := os.ReadFile("/proc/sys/kernel/osrelease")
	assert.NilError(t, err)
	version, err := os.ReadFile("/proc/sys/kernel/version")
	assert.NilError(t, err)
	assert.Check(t, is.Equal(s.KernelRelease, strings.TrimSpace(string(release))))
	assert.Check(t, is.Equal(s.KernelVersion, strings.TrimSpace(string(version))))
	assert.Check(t, !s.GVisor(), "the tests run on Linux, not under gVisor")
}

// TestRunnerSelfcheckNoNewPrivsAndNProc: the runner's hello reads
// no_new_privs by prctl as its status file says it (the test's, or set by
// the runner to install its filter), and RLIMIT_NPROC as
// it was set on it (prlimit, as docker's --ulimit nproc=64:64 does).
func TestRunnerSelfcheckNoNewPrivsAndNProc(t *testing.T) {
	t.Parallel()
	prlimit, err := exec.LookPath("prlimit")
	assert.NilError(t, err, "util-linux's prlimit sets the runner's RLIMIT_NPROC")
	cmd := exec.Command(prlimit, "--nproc=4096:8192", runnerBin, "--selfcheck")
	cmd.Stdin = strings.NewReader(`{"source":""}` + "\n")
	out, err := cmd.Output()
	assert.NilError(t, err)
	line, _, _ := strings.Cut(string(out), "\n")
	h, err := protocol.DecodeHello([]byte(line))
	assert.NilError(t, err, line)
	status, err := readKeyed("/proc/self/status", ":")
	assert.NilError(t, err)
	assert.Check(t, is.Equal(h.Selfcheck.NoNewPrivsPrctl, h.Selfcheck.NoNewPrivs))
	want := status["NoNewPrivs"] // inherited from the test
	if h.Selfcheck.SeccompBy == hello.SeccompByRunner {
		want = "1" // set to install the filter
	}
	assert.Check(t, is.Equal(strconv.Itoa(h.Selfcheck.NoNewPrivs), want))
	assert.Check(t, is.Equal(h.Selfcheck.NProcSoft, int64(4096)))
	assert.Check(t, is.Equal(h.Selfcheck.NProcHard, int64(8192)))
}

// TestMknodErrno: the probe makes a character device at a fresh name and
// removes it where it may (CAP_MKNOD), gets EPERM where it may not (the
// sandbox user), and leaves nothing behind either way.
func TestMknodErrno(t *testing.T) {
	dir := t.TempDir()
	status, err := readKeyed("/proc/self/status", ":")
	assert.NilError(t, err)
	capEff, err := strconv.ParseUint(status["CapEff"], 16, 64)
	assert.NilError(t, err)
	want := int(syscall.EPERM)
	if capEff&(1<<27) != 0 { // CAP_MKNOD
		want = 0
	}
	assert.Check(t, is.Equal(mknodErrno(dir), want))
	assert.Check(t, is.Equal(mknodErrno(dir), want), "a second probe needs a fresh name too")
	left, err := os.ReadDir(dir)
	assert.NilError(t, err)
	assert.Check(t, is.Len(left, 0))
	assert.Check(t, is.Equal(mknodErrno(dir+"/missing"), int(syscall.ENOENT)))
}
