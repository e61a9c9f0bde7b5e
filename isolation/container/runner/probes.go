package main

import (
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// perLinux32 is the 32-bit persona, which the policy's filter refuses.
const perLinux32 = 0x0008

// syscallProbes calls each syscall the policy's seccomp profile refuses
// with its own errno (limits.SeccompProbes), with arguments the kernel
// rejects anyway, and returns the errno each got (0: it succeeded). So
// nothing is created when a call gets through, and the host can tell this
// filter (limits.FilterErrno) from the kernel or another profile.
func syscallProbes() map[string]int {
	calls := map[string]func() (uintptr, syscall.Errno){
		// entries 0: EINVAL from the kernel.
		"io_uring_setup": func() (uintptr, syscall.Errno) { return raw(unix.SYS_IO_URING_SETUP, 0, 0, 0) },
		// no such request, no such pid: ESRCH or EIO.
		"ptrace": func() (uintptr, syscall.Errno) { return raw(unix.SYS_PTRACE, ^uintptr(0), 0, 0) },
		// The one probe the kernel would grant; undone below if it was.
		"personality": func() (uintptr, syscall.Errno) { return raw(unix.SYS_PERSONALITY, perLinux32, 0, 0) },
		// unknown flags: EINVAL.
		"userfaultfd": func() (uintptr, syscall.Errno) { return raw(unix.SYS_USERFAULTFD, ^uintptr(0), 0, 0) },
		// unknown command, no attributes: EINVAL or EPERM.
		"bpf": func() (uintptr, syscall.Errno) { return raw(unix.SYS_BPF, ^uintptr(0), 0, 0) },
		// no attributes: EFAULT.
		"perf_event_open": func() (uintptr, syscall.Errno) {
			return raw(unix.SYS_PERF_EVENT_OPEN, 0, 0, ^uintptr(0), ^uintptr(0))
		},
		// unknown operation: EOPNOTSUPP.
		"keyctl": func() (uintptr, syscall.Errno) { return raw(unix.SYS_KEYCTL, ^uintptr(0), 0, 0) },
		// no type or description: EFAULT.
		"add_key": func() (uintptr, syscall.Errno) { return raw(unix.SYS_ADD_KEY) },
		// unknown flags: EINVAL.
		"unshare": func() (uintptr, syscall.Errno) { return raw(unix.SYS_UNSHARE, ^uintptr(0), 0, 0) },
		// no source or target: EFAULT or EPERM.
		"mount": func() (uintptr, syscall.Errno) { return raw(unix.SYS_MOUNT) },
		// no segments, unknown flags: EPERM or EINVAL.
		"kexec_load": func() (uintptr, syscall.Errno) { return raw(unix.SYS_KEXEC_LOAD, 0, 0, 0, ^uintptr(0)) },
		// no handle: EPERM or EBADF.
		"open_by_handle_at": func() (uintptr, syscall.Errno) { return raw(unix.SYS_OPEN_BY_HANDLE_AT, ^uintptr(0), 0, 0) },
		// unknown flags: EINVAL.
		"process_vm_readv": func() (uintptr, syscall.Errno) { return raw(unix.SYS_PROCESS_VM_READV, 0, 0, 0, 0, 0, ^uintptr(0)) },
		// no siginfo: EFAULT, before any signal is sent.
		"rt_sigqueueinfo": func() (uintptr, syscall.Errno) { return raw(unix.SYS_RT_SIGQUEUEINFO, 1, uintptr(syscall.SIGURG), 0) },
		// unknown flags: EINVAL (ENOSYS where the kernel lacks it).
		"memfd_secret": func() (uintptr, syscall.Errno) { return raw(unix.SYS_MEMFD_SECRET, ^uintptr(0)) },
		// unknown type flags: EINVAL before any socket is made.
		"socket(AF_ALG)":   func() (uintptr, syscall.Errno) { return raw(unix.SYS_SOCKET, unix.AF_ALG, ^uintptr(0), 0) },
		"socket(AF_VSOCK)": func() (uintptr, syscall.Errno) { return raw(unix.SYS_SOCKET, unix.AF_VSOCK, ^uintptr(0), 0) },
	}
	out := make(map[string]int, len(limits.SeccompProbes))
	for _, name := range limits.SeccompProbes {
		call, ok := calls[name]
		if !ok {
			out[name] = -1 // a probe this runner does not know: fails the judgement
			continue
		}
		r, e := call()
		out[name] = int(e)
		if name == "personality" && e == 0 {
			raw(unix.SYS_PERSONALITY, r) // restore the persona it had
		}
	}
	return out
}

// raw makes the call nr with up to six arguments, the rest 0.
func raw(nr uintptr, args ...uintptr) (uintptr, syscall.Errno) {
	var a [6]uintptr
	copy(a[:], args)
	r, _, e := syscall.RawSyscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5])
	return r, e
}
