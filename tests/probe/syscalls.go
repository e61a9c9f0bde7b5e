package main

import (
	"runtime"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// syscalls really attempts each kernel surface the policy's seccomp
// profile refuses, with arguments that would succeed if the call were
// allowed, and reports the errno each got. Run it only in a container:
// as root on a host its mount would cover /tmp.
func syscalls([]string) report {
	r := report{}
	// In this order: each step's calls run one after another.
	processSurfaces(r)
	kernelObjects(r)
	mountSurfaces(r)
	fileHandles(r)
	clones(r)
	return r
}

// got records how the call name ended.
func (r report) got(name string, ret uintptr, e syscall.Errno) {
	if e == 0 {
		r[name] = "allowed (returned " + strconv.FormatUint(uint64(ret), 10) + ")"
		return
	}
	r[name] = "errno " + strconv.Itoa(int(e))
}

// processSurfaces tries io_uring, ptrace, a personality and userfaultfd,
// undoing what an allowed call made.
func processSurfaces(r report) {
	var params [120]byte // struct io_uring_params, zeroed
	ret, _, e := syscall.RawSyscall(unix.SYS_IO_URING_SETUP, 4, uintptr(unsafe.Pointer(&params)), 0)
	r.got("io_uring_setup", ret, e)
	if e == 0 {
		syscall.Close(int(ret))
	}
	ret, e = traceMe()
	r.got("ptrace", ret, e)
	ret, _, e = syscall.RawSyscall(unix.SYS_PERSONALITY, 0x0008, 0, 0) // PER_LINUX32
	r.got("personality", ret, e)
	if e == 0 {
		syscall.RawSyscall(unix.SYS_PERSONALITY, ret, 0, 0)
	}
	ret, _, e = syscall.RawSyscall(unix.SYS_USERFAULTFD, unix.O_CLOEXEC, 0, 0)
	r.got("userfaultfd", ret, e)
	if e == 0 {
		syscall.Close(int(ret))
	}
}

// kernelObjects tries to make a BPF map, a perf event and keys.
func kernelObjects(r report) {
	// BPF_MAP_CREATE of a one-entry array.
	attr := [20]uint32{2 /* BPF_MAP_TYPE_ARRAY */, 4, 4, 1}
	ret, _, e := syscall.RawSyscall(unix.SYS_BPF, 0, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr))
	r.got("bpf", ret, e)
	// A software clock counter on this process.
	var pattr unix.PerfEventAttr
	pattr.Type, pattr.Config, pattr.Size = unix.PERF_TYPE_SOFTWARE, unix.PERF_COUNT_SW_CPU_CLOCK, uint32(unsafe.Sizeof(pattr))
	ret, _, e = syscall.RawSyscall6(unix.SYS_PERF_EVENT_OPEN, uintptr(unsafe.Pointer(&pattr)), 0, ^uintptr(0), ^uintptr(0), 0, 0)
	r.got("perf_event_open", ret, e)
	ret, _, e = syscall.RawSyscall(unix.SYS_KEYCTL, unix.KEYCTL_GET_KEYRING_ID, neg(unix.KEY_SPEC_SESSION_KEYRING), 1)
	r.got("keyctl", ret, e)
	typ, desc, payload := cstr("user"), cstr("synapse-probe"), []byte("x")
	ret, _, e = syscall.RawSyscall6(unix.SYS_ADD_KEY, uintptr(unsafe.Pointer(typ)), uintptr(unsafe.Pointer(desc)),
		uintptr(unsafe.Pointer(&payload[0])), 1, neg(unix.KEY_SPEC_PROCESS_KEYRING), 0)
	r.got("add_key", ret, e)
}

// mountSurfaces tries a user namespace, a mount on /tmp and kexec_load.
func mountSurfaces(r report) {
	ret, _, e := syscall.RawSyscall(unix.SYS_UNSHARE, unix.CLONE_NEWUSER, 0, 0)
	r.got("unshare", ret, e)
	src, dst, fstype := cstr("none"), cstr("/tmp"), cstr("tmpfs")
	ret, _, e = syscall.RawSyscall6(unix.SYS_MOUNT, uintptr(unsafe.Pointer(src)), uintptr(unsafe.Pointer(dst)), uintptr(unsafe.Pointer(fstype)), 0, 0, 0)
	r.got("mount", ret, e)
	ret, _, e = syscall.RawSyscall6(unix.SYS_KEXEC_LOAD, 0, 0, 0, 0, 0, 0)
	r.got("kexec_load", ret, e)
}

// fileHandles tries to name / by a handle and to open that handle.
func fileHandles(r report) {
	// A handle for / as name_to_handle_at would give it: refused first.
	handle := make([]byte, 8+128)
	*(*uint32)(unsafe.Pointer(&handle[0])) = 128
	root := cstr("/")
	var mount int32
	ret, _, e := syscall.RawSyscall6(unix.SYS_NAME_TO_HANDLE_AT, neg(unix.AT_FDCWD), uintptr(unsafe.Pointer(root)),
		uintptr(unsafe.Pointer(&handle[0])), uintptr(unsafe.Pointer(&mount)), 0, 0)
	r.got("name_to_handle_at", ret, e)
	ret, _, e = syscall.RawSyscall(unix.SYS_OPEN_BY_HANDLE_AT, neg(unix.AT_FDCWD), uintptr(unsafe.Pointer(&handle[0])), unix.O_RDONLY)
	r.got("open_by_handle_at", ret, e)
}

// clones tries clone into a new user namespace and clone3.
func clones(r report) {
	// clone into a new user namespace: refused by clone's flag condition.
	ret, _, e := syscall.RawSyscall6(unix.SYS_CLONE, unix.CLONE_NEWUSER|uintptr(syscall.SIGCHLD), 0, 0, 0, 0, 0)
	if e == 0 && ret == 0 {
		syscall.RawSyscall(unix.SYS_EXIT, 0, 0, 0)
	}
	r.got("clone_newuser", ret, e)
	if e == 0 {
		var ws syscall.WaitStatus
		syscall.Wait4(int(ret), &ws, 0, nil)
	}
	// clone3 is answered ENOSYS, so C libraries fall back to clone.
	ret, _, e = syscall.RawSyscall(unix.SYS_CLONE3, 0, 0, 0)
	r.got("clone3", ret, e)
}

// traceMe calls ptrace(PTRACE_TRACEME) in a child made with a raw fork,
// which sends back the errno through a pipe: a process that succeeded
// stays traced by its parent, and this probe, PID 1 of its container, must
// not become the tracee of whatever started it (every signal would then
// stop it until that tracer looked).
func traceMe() (uintptr, syscall.Errno) {
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		return 0, err.(syscall.Errno)
	}
	defer syscall.Close(fds[0])
	runtime.LockOSThread()
	pid, _, e := syscall.RawSyscall(unix.SYS_CLONE, uintptr(syscall.SIGCHLD), 0, 0) // fork: arm64 has only clone
	if e != 0 {
		runtime.UnlockOSThread()
		syscall.Close(fds[1])
		return 0, e
	}
	if pid == 0 {
		// The child: nothing but raw system calls after a raw fork.
		_, _, e := syscall.RawSyscall(unix.SYS_PTRACE, unix.PTRACE_TRACEME, 0, 0)
		b := [2]byte{byte(e), byte(e >> 8)}
		syscall.RawSyscall(unix.SYS_WRITE, uintptr(fds[1]), uintptr(unsafe.Pointer(&b[0])), 2)
		syscall.RawSyscall(unix.SYS_EXIT_GROUP, 0, 0, 0)
	}
	runtime.UnlockOSThread()
	syscall.Close(fds[1])
	var b [2]byte
	n, _ := syscall.Read(fds[0], b[:])
	var ws syscall.WaitStatus
	syscall.Wait4(int(pid), &ws, 0, nil)
	if n != 2 {
		return 0, syscall.EIO // the child died before it could answer
	}
	return 0, syscall.Errno(uint16(b[0]) | uint16(b[1])<<8)
}

// neg passes a negative int argument (a special keyring, AT_FDCWD).
func neg(n int) uintptr { return uintptr(n) }

func cstr(s string) *byte {
	b := append([]byte(s), 0)
	return &b[0]
}
