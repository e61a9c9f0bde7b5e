package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/synapse-lang/synapse-isolation/limits/seccomp"
)

// installFilter installs the policy's syscall filter (seccomp.Filter)
// on every thread of the runner, and so on every process it starts: gVisor
// ignores the OCI profile Docker passes, and the runner, PID 1 of the
// container, applies the same table itself. Under runc the profile is
// already in force and this stacks an identical filter beneath it, which
// changes no answer.
//
// SECCOMP_FILTER_FLAG_TSYNC puts the filter on all the runtime's threads at
// once, or on none: a thread the kernel cannot synchronise (one with a
// filter not an ancestor of this one) fails the call with its thread id.
func installFilter() error {
	prog, err := seccomp.Filter()
	if err != nil {
		return err
	}
	filter := make([]unix.SockFilter, len(prog))
	for i, in := range prog {
		filter[i] = unix.SockFilter{Code: in.Code, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	// Docker sets no_new_privs already (--security-opt no-new-privileges);
	// the kernel requires it of a process without CAP_SYS_ADMIN.
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("seccomp: set no_new_privs: %w", err)
	}
	fprog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	r, _, e := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC,
		uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(filter)
	if e != 0 {
		return fmt.Errorf("seccomp: install the filter: %w", e)
	}
	if r != 0 {
		return fmt.Errorf("seccomp: thread %d cannot take the filter (TSYNC); no thread has it", r)
	}
	return nil
}

// seccompFilterMode is the Seccomp field of /proc/self/status when a
// filter is in force (SECCOMP_MODE_FILTER).
const seccompFilterMode = 2

// filterInForce reports whether a seccomp filter is in force on the
// calling thread, from the kernel's (or gVisor's) own account in
// /proc/self/status, not from whether installFilter returned nil.
func filterInForce() (bool, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return false, err
	}
	mode, err := statusSeccomp(b)
	if err != nil {
		return false, err
	}
	return mode == seccompFilterMode, nil
}

// statusSeccomp reads the Seccomp field of a /proc/<pid>/status.
func statusSeccomp(status []byte) (int, error) {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		v, ok := bytes.CutPrefix(sc.Bytes(), []byte("Seccomp:"))
		if !ok {
			continue
		}
		n, err := strconv.Atoi(string(bytes.TrimSpace(v)))
		if err != nil {
			return 0, fmt.Errorf("/proc/self/status: Seccomp %q is not a number", bytes.TrimSpace(v))
		}
		return n, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, errors.New("/proc/self/status: no Seccomp field")
}
