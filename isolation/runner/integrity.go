package main

import (
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The program shares the runner's uid and PID namespace, so the runner
// protects itself from the program: it is non-dumpable (its /proc files
// belong to root), deaf to signals, and never in need of a new thread once
// the program runs. See DESIGN §10.

// protect makes this process non-dumpable and deaf to every signal it does
// not need. Non-dumpable, /proc/<pid>/mem, fd/*, environ, maps and
// oom_score_adj belong to root, and a same-uid process without
// capabilities cannot open them (the kernel's ptrace access check). It is
// the first thing the runner does; an exec resets it, so every re-executed
// child of the runner calls it again.
func protect() {
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	deafen()
}

// deafen ignores every signal but those the Go runtime itself relies on
// (SIGURG preempts goroutines, SIGPROF profiles, and SIGCHLD must stay
// default: ignored, children are reaped by the kernel and Wait fails).
// As PID 1 of its namespace the kernel then drops what the program sends,
// SIGKILL and SIGSTOP included; a fault signal the runtime must keep
// handling (SIGSEGV, SIGBUS, ...) is ignored by the runtime when a process
// sent it. The seccomp filter refuses the sends that forge a kernel
// siginfo (rt_sigqueueinfo, pidfd_send_signal with one).
func deafen() {
	for s := syscall.Signal(1); s <= 64; s++ {
		switch s {
		case syscall.SIGKILL, syscall.SIGSTOP, syscall.SIGCHLD, syscall.SIGURG, syscall.SIGPROF:
			continue
		}
		signal.Ignore(s)
	}
}

// spareThreads is how many idle OS threads the runner keeps before the
// program starts. Once the program runs, the runner's goroutines block in
// at most a few system calls at a time (the child's wait, a cgroup read,
// the response write), and each such call needs a thread of its own; a
// thread it had to create then would fail when the program holds every PID
// of the cgroup, and the Go runtime dies of a failed thread creation.
const spareThreads = 8

// reserveThreads makes the Go runtime start n threads and park them idle:
// it keeps idle threads for reuse and never ends them, so the runtime
// needs no new one while the program runs.
func reserveThreads(n int) {
	var held, release sync.WaitGroup
	held.Add(n)
	release.Add(1)
	for range n {
		go func() {
			// Locked, each goroutine holds a thread of its own until all
			// are held; unlocked, the thread returns to the idle list.
			runtime.LockOSThread()
			held.Done()
			release.Wait()
			runtime.UnlockOSThread()
		}()
	}
	held.Wait()
	release.Done()
}

// procFiles are the runner's own /proc files the program must not open,
// each with the flags an attacker would open it with.
var procFiles = [4]struct {
	name  string
	flags int
}{{"mem", unix.O_RDWR}, {"fd/1", unix.O_WRONLY}, {"environ", unix.O_RDONLY}, {"oom_score_adj", unix.O_WRONLY}}

// procProbes opens this process's own /proc files from a throwaway child,
// as the program would (same uid, no capabilities), and returns the errno
// of each open, 0 where it opened. The child is a raw fork, reaped here
// before the hello is written.
func procProbes() map[string]int {
	var paths [len(procFiles)]*byte
	var flags [len(procFiles)]int
	out := make(map[string]int, len(procFiles))
	for i, f := range procFiles {
		paths[i] = &[]byte("/proc/" + strconv.Itoa(os.Getpid()) + "/" + f.name + "\x00")[0]
		flags[i] = f.flags | unix.O_CLOEXEC
		out[f.name] = -1 // not probed: fails the judgement
	}
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return out
	}
	defer syscall.Close(p[0])
	defer syscall.Close(p[1])
	var errnos [len(procFiles)]int32
	runtime.LockOSThread()
	pid, errno := forkProbe(&paths, &flags, p[1], &errnos)
	runtime.UnlockOSThread()
	if errno != 0 {
		return out
	}
	// The child shares this descriptor table: the pipe stays open until
	// it has exited, and what it wrote is all there then.
	var ws syscall.WaitStatus
	_, _ = syscall.Wait4(int(pid), &ws, 0, nil)
	buf := unsafe.Slice((*byte)(unsafe.Pointer(&errnos[0])), unsafe.Sizeof(errnos))
	n, _ := readFull(p[0], buf)
	if n == len(buf) {
		for i, f := range procFiles {
			out[f.name] = int(errnos[i])
		}
	}
	return out
}

// forkProbe forks without the Go runtime (clone with SIGCHLD and no
// CLONE_VM is fork on every architecture; arm64 has no fork). The child
// has one thread and makes only raw system calls: it opens each path,
// writes the errnos to wfd and exits. It shares the descriptor table
// (CLONE_FILES), so it holds no copy of the runner's stdout to release:
// under gVisor a child that released such a copy, by close or by exit,
// broke the runner's writes to stdout. It returns the child's pid in the
// parent.
//
//go:nosplit
//go:norace
func forkProbe(paths *[len(procFiles)]*byte, flags *[len(procFiles)]int, wfd int, errnos *[len(procFiles)]int32) (uintptr, syscall.Errno) {
	pid, _, errno := syscall.RawSyscall6(unix.SYS_CLONE, uintptr(syscall.SIGCHLD)|unix.CLONE_FILES, 0, 0, 0, 0, 0)
	if errno != 0 || pid != 0 {
		return pid, errno
	}
	for i := 0; i < len(paths); i++ {
		fd, _, e := syscall.RawSyscall6(unix.SYS_OPENAT, uintptr(atFDCWD), uintptr(unsafe.Pointer(paths[i])), uintptr(flags[i]), 0, 0, 0)
		errnos[i] = int32(e)
		if e == 0 {
			syscall.RawSyscall(unix.SYS_CLOSE, fd, 0, 0)
		}
	}
	syscall.RawSyscall(unix.SYS_WRITE, uintptr(wfd), uintptr(unsafe.Pointer(errnos)), unsafe.Sizeof(*errnos))
	syscall.RawSyscall(unix.SYS_EXIT_GROUP, 0, 0, 0)
	return 0, 0
}

// readFull reads len(b) bytes from fd unless it ends first.
func readFull(fd int, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := syscall.Read(fd, b[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil || m <= 0 {
			return n, err
		}
		n += m
	}
	return n, nil
}
