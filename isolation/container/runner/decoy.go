package main

import (
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// startDecoy forks a process that only waits, with oom_score_adj 1000, for
// the kernel's OOM killer to take instead of the runner. The program is
// the killer's first choice (it inherits 1000 at its start); but a victim
// whose threads still fault while its memory is being freed can trigger a
// second OOM in the same instant, and with the victim already skipped the
// runner, the only other process, was taken (4 of 30 runs of an
// allocating multi-threaded exec-mode child at 64m, here), leaving no
// runner to report. The decoy is the second choice: a page or two of its
// own, no Go runtime (it is a raw fork and makes only raw system calls),
// and one of the 64 PIDs. killLeftovers ends it with the child's leftovers.
func startDecoy() {
	path := append([]byte("/proc/self/oom_score_adj"), 0)
	value := []byte("1000")
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// clone with only SIGCHLD is fork on every architecture (arm64 has no fork).
	pid, _, errno := syscall.RawSyscall6(unix.SYS_CLONE, uintptr(syscall.SIGCHLD), 0, 0, 0, 0, 0)
	if errno != 0 || pid != 0 {
		return // the runner: with or without a decoy, it goes on
	}
	// The decoy: nothing but raw system calls after a raw fork. A fork
	// without exec keeps every descriptor, close-on-exec or not: a pipe's
	// write end held here would keep its reader waiting for EOF.
	if _, _, e := syscall.RawSyscall(unix.SYS_CLOSE_RANGE, 0, ^uintptr(0), 0); e != 0 {
		for fd := uintptr(0); fd < 1024; fd++ { // before Linux 5.9
			syscall.RawSyscall(unix.SYS_CLOSE, fd, 0, 0)
		}
	}
	// Forked from the non-dumpable runner, its oom_score_adj belongs to
	// root; dumpable for the one write, then not again. Nothing of the
	// runner's is reachable through it meanwhile: it holds no descriptor.
	syscall.RawSyscall(unix.SYS_PRCTL, unix.PR_SET_DUMPABLE, 1, 0)
	fd, _, errno := syscall.RawSyscall6(unix.SYS_OPENAT, uintptr(atFDCWD), uintptr(unsafe.Pointer(&path[0])), uintptr(syscall.O_WRONLY), 0, 0, 0)
	if errno == 0 {
		syscall.RawSyscall(unix.SYS_WRITE, fd, uintptr(unsafe.Pointer(&value[0])), uintptr(len(value)))
		syscall.RawSyscall(unix.SYS_CLOSE, fd, 0, 0)
	}
	syscall.RawSyscall(unix.SYS_PRCTL, unix.PR_SET_DUMPABLE, 0, 0)
	for {
		// pselect6 with no descriptors and no timeout waits for a signal.
		// It must be a call the policy's seccomp allowlist has on every
		// architecture: refused, a wait returns at once, and the decoy
		// would spin on the container's one CPU, slowing the program.
		_, _, e := syscall.RawSyscall6(unix.SYS_PSELECT6, 0, 0, 0, 0, 0, 0)
		if e != syscall.EINTR {
			// Never spin: a decoy that cannot wait ends instead.
			syscall.RawSyscall(unix.SYS_EXIT_GROUP, 0, 0, 0)
		}
	}
}

// atFDCWD is AT_FDCWD as a value to pass in a register.
var atFDCWD = unix.AT_FDCWD
