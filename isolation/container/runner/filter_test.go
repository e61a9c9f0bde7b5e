package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// filterChildEnv switches the test binary into one of the children below.
// The switch is in init, before TestMain (which builds the runner): a
// filter, once installed, cannot be removed, so each case installs it in a
// process of its own, on the host's kernel, without Docker.
const filterChildEnv = "SYNAPSE_FILTER_TEST_CHILD"

func init() {
	var report any
	switch os.Getenv(filterChildEnv) {
	case "":
		return
	case "install":
		report = installChild()
	case "cost":
		report = costChild()
	default:
		os.Exit(3)
	}
	if err := json.NewEncoder(os.Stdout).Encode(report); err != nil {
		os.Exit(2)
	}
	os.Exit(0)
}

// runFilterChild runs this test binary as the child named by mode and
// decodes its report.
func runFilterChild(t *testing.T, mode string, report any) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), filterChildEnv+"="+mode)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	assert.NilError(t, cmd.Run(), "child %s: %s", mode, stderr.String())
	assert.NilError(t, json.Unmarshal(stdout.Bytes(), report), stdout.String())
}

// installReport is what the install child saw after installFilter.
type installReport struct {
	Install      string            `json:"install"` // installFilter's error, "" if none
	InForce      bool              `json:"inForce"`
	Threads      map[int]int       `json:"threads"` // each thread's Seccomp mode
	NewThreads   int               `json:"newThreads"`
	Probes       map[string]int    `json:"probes"`
	Clone3       int               `json:"clone3"`
	Reboot       int               `json:"reboot"`
	Work         map[string]string `json:"work"` // ordinary work: "" if it worked, else its error
	FileRoundTrp string            `json:"fileRoundTrip"`
}

func installChild() installReport {
	var r installReport
	if err := installFilter(); err != nil {
		r.Install = err.Error()
		return r
	}
	inForce, err := filterInForce()
	r.InForce = inForce && err == nil
	r.Probes = syscallProbes()
	// Both would succeed or fail otherwise for the kernel: clone3 with no
	// arguments is EINVAL, reboot with no magic EINVAL (EPERM only
	// without CAP_SYS_BOOT).
	_, r.Clone3 = rawErrno(unix.SYS_CLONE3, 0, 0)
	_, r.Reboot = rawErrno(unix.SYS_REBOOT, 0, 0, 0, 0)
	r.Work = map[string]string{
		"file":    errText(fileWork(&r)),
		"threads": errText(threadWork(&r)),
		"exec":    errText(exec.Command("/bin/true").Run()),
		"tcp":     errText(tcpWork()),
	}
	// Last, so the threads started above are counted.
	r.Threads = threadModes()
	return r
}

func rawErrno(nr uintptr, args ...uintptr) (uintptr, int) {
	r, e := raw(nr, args...)
	return r, int(e)
}

func errText(err error) string {
	if err != nil {
		return err.Error()
	}
	return ""
}

func fileWork(r *installReport) error {
	dir, err := os.MkdirTemp("", "filter-child")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("written under the filter"), 0o600); err != nil {
		return err
	}
	b, err := os.ReadFile(p)
	r.FileRoundTrp = string(b)
	return err
}

// threadWork makes the runtime start new threads: each goroutine locked
// to its thread and blocked holds one, so the next needs a new one.
func threadWork(r *installReport) error {
	before := len(threadModes())
	const n = 4
	var ready sync.WaitGroup
	release := make(chan struct{})
	ready.Add(n)
	for range n {
		go func() {
			runtime.LockOSThread()
			ready.Done()
			<-release
		}()
	}
	ready.Wait()
	r.NewThreads = len(threadModes()) - before
	close(release)
	if r.NewThreads < 1 {
		return fmt.Errorf("%d threads before, no new one", before)
	}
	return nil
}

func tcpWork() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.Write([]byte("x"))
			c.Close()
		}
	}()
	c, err := net.DialTimeout("tcp", ln.Addr().String(), 5*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	b, err := io.ReadAll(c)
	if err == nil && string(b) != "x" {
		err = fmt.Errorf("read %q, not x", b)
	}
	return err
}

// threadModes is each thread's Seccomp mode, by thread id.
func threadModes() map[int]int {
	out := map[int]int{}
	ents, _ := os.ReadDir("/proc/self/task")
	for _, e := range ents {
		var tid int
		fmt.Sscan(e.Name(), &tid)
		b, err := os.ReadFile(filepath.Join("/proc/self/task", e.Name(), "status"))
		if err != nil {
			continue // the thread has exited
		}
		mode, err := statusSeccomp(b)
		if err != nil {
			mode = -1
		}
		out[tid] = mode
	}
	return out
}

// TestInstallFilterOnTheKernel installs the filter in a child and checks
// that it refuses what the profile refuses, with the profile's errnos, on
// every thread, while ordinary work goes on.
func TestInstallFilterOnTheKernel(t *testing.T) {
	t.Parallel()
	var r installReport
	runFilterChild(t, "install", &r)
	assert.Equal(t, r.Install, "")
	assert.Check(t, r.InForce, "filterInForce after installFilter")
	for _, name := range limits.SeccompProbes {
		assert.Check(t, is.Equal(r.Probes[name], limits.FilterErrno), "probe %s", name)
	}
	assert.Check(t, is.Equal(r.Clone3, int(unix.ENOSYS)), "clone3")
	assert.Check(t, is.Equal(r.Reboot, int(unix.EPERM)), "reboot, outside the table")
	for what, err := range r.Work {
		assert.Check(t, is.Equal(err, ""), "%s under the filter", what)
	}
	assert.Check(t, is.Equal(r.FileRoundTrp, "written under the filter"))
	assert.Check(t, r.NewThreads >= 1, "new threads: %d", r.NewThreads)
	assert.Check(t, len(r.Threads) > 1)
	for tid, mode := range r.Threads {
		assert.Check(t, is.Equal(mode, 2), "thread %d", tid)
	}
}

func TestFilterInForceWithout(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("/proc/self/status")
	assert.NilError(t, err)
	mode, err := statusSeccomp(b)
	assert.NilError(t, err)
	inForce, err := filterInForce()
	assert.NilError(t, err)
	assert.Equal(t, inForce, mode == 2) // 0 on a bare host, 2 inside a container
}

func TestStatusSeccomp(t *testing.T) {
	t.Parallel()
	mode, err := statusSeccomp([]byte("Name:\trunner\nNoNewPrivs:\t1\nSeccomp:\t2\nSeccomp_filters:\t1\n"))
	assert.NilError(t, err)
	assert.Equal(t, mode, 2)
	_, err = statusSeccomp([]byte("Name:\trunner\n"))
	assert.Check(t, is.ErrorContains(err, "no Seccomp field"))
	_, err = statusSeccomp([]byte("Seccomp:\tfilter\n"))
	assert.Check(t, is.ErrorContains(err, `Seccomp "filter" is not a number`))
}

// costReport pairs rounds of two syscalls on three threads of one
// process: one with the policy's filter, one with a filter that allows
// everything in one instruction (the kernel's fixed cost of any filter),
// one without. getpid is allowed whatever its arguments, so since Linux
// 5.11 the kernel answers it from its per-filter cache of constant
// actions without running the program; personality(0xffffffff) is
// allowed by a condition, so the program runs for it on every call.
type costReport struct {
	Error string          `json:"error"`
	Calls int             `json:"calls"`
	NS    [2][3][]float64 `json:"ns"`   // ns per call, by syscall, thread and round
	Mode  [3]int          `json:"mode"` // each thread's Seccomp mode
	Pid   [3]int          `json:"pid"`  // what getpid answered on each thread
}

// Threads of the cost measurement.
const (
	costPolicy = iota
	costAllowAll
	costBare
)
