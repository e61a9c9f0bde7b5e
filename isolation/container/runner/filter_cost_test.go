package main

import (
	"os"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/limits/seccomp"
)

// costChild measures costCalls on three locked threads, each installing
// its filter for itself alone (no TSYNC). Rounds are short and rotate the
// threads' order, so the machine's load (other builds share its two cores)
// falls alike on the three calls each ratio compares.
func costChild() costReport {
	const rounds, calls = 101, 20_000
	r := costReport{Calls: calls}
	type job struct {
		call int // index in costCalls
		done chan float64
	}
	var jobs [3]chan job
	errs := make(chan error)
	for i := range jobs {
		jobs[i] = make(chan job)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with its goroutine
			var err error
			switch i {
			case costPolicy:
				var prog []seccomp.SockFilter
				if prog, err = seccomp.Filter(); err == nil {
					err = installThreadFilter(prog)
				}
			case costAllowAll:
				err = installThreadFilter([]seccomp.SockFilter{{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW}})
			}
			r.Mode[i], _ = statusSeccompOf("/proc/thread-self/status")
			pid, _, _ := syscall.RawSyscall(unix.SYS_GETPID, 0, 0, 0)
			r.Pid[i] = int(pid)
			errs <- err
			for j := range jobs[i] {
				c := costCalls[j.call]
				start := time.Now()
				for range calls {
					syscall.RawSyscall(c.nr, c.arg, 0, 0)
				}
				j.done <- float64(time.Since(start).Nanoseconds()) / calls
			}
		}()
		if err := <-errs; err != nil {
			r.Error = err.Error()
			return r
		}
	}
	done := make(chan float64)
	for round := range rounds {
		for c := range costCalls {
			for k := range jobs {
				i := (round + k) % len(jobs)
				jobs[i] <- job{call: c, done: done}
				r.NS[c][i] = append(r.NS[c][i], <-done)
			}
		}
	}
	return r
}

// costCalls are the syscalls measured, each with its one argument.
var costCalls = [2]struct {
	name    string
	nr, arg uintptr
}{{"getpid", unix.SYS_GETPID, 0}, {"personality(0xffffffff)", unix.SYS_PERSONALITY, 0xffffffff}}

// installThreadFilter installs prog on the calling thread only, for the
// cost measurement.
func installThreadFilter(prog []seccomp.SockFilter) error {
	filter := make([]unix.SockFilter, len(prog))
	for i, in := range prog {
		filter[i] = unix.SockFilter{Code: in.Code, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	fprog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	_, _, e := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(filter)
	if e != 0 {
		return e
	}
	return nil
}

func statusSeccompOf(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return statusSeccomp(b)
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// TestFilterCost measures what the filter adds to a syscall on this
// kernel, which JIT-compiles the program (gVisor interprets the same
// program in its sentry). It asserts what was measured under: each
// thread's filter mode, getpid answering on all three; the figures are
// logged.
func TestFilterCost(t *testing.T) {
	var r costReport
	runFilterChild(t, "cost", &r)
	assert.Equal(t, r.Error, "")
	before, err := statusSeccompOf("/proc/self/status")
	assert.NilError(t, err)
	assert.Check(t, is.Equal(r.Mode, [3]int{2, 2, before}), "the bare thread keeps the test's own mode")
	assert.Check(t, r.Pid[0] > 0 && r.Pid[0] == r.Pid[1] && r.Pid[1] == r.Pid[2], "getpid: %v", r.Pid)
	prog, err := seccomp.Filter()
	assert.NilError(t, err)
	t.Logf("program %d instructions; medians of %d rounds of %d calls", len(prog), len(r.NS[0][costBare]), r.Calls)
	for c, call := range costCalls {
		ns := r.NS[c]
		ratio := func(i int) float64 {
			rs := make([]float64, len(ns[i]))
			for k := range rs {
				rs[k] = ns[i][k] / ns[costBare][k]
			}
			return median(rs)
		}
		t.Logf("%s: %.1f ns with the policy's filter, %.1f ns with a one-instruction allow filter, %.1f ns bare; "+
			"median paired ratios to bare %.3f and %.3f",
			call.name, median(ns[costPolicy]), median(ns[costAllowAll]), median(ns[costBare]), ratio(costPolicy), ratio(costAllowAll))
	}
}
