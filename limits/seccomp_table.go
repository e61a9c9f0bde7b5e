package limits

// syscalls is a group of syscalls with the one reason they share.
type syscalls struct {
	names []string
	why   string
}

// allowed is what the runner, runc after it loads the filter, and the
// Python image need, measured with the kernel's seccomp log over the live
// suite (scripts/seccomp-log.sh), each group with why a program needs it.
// clone and personality are allowed with argument conditions (seccomp.go).
var allowed = []syscalls{
	{[]string{"execve"}, "runc starts the runner, and the runner its interpreter"},
	{[]string{"fork", "vfork", "exit", "exit_group", "wait4", "waitid", "pause"}, "processes start, end and are waited for (clone has its own rule)"},
	{[]string{"kill", "tgkill", "pidfd_open", "setpgid"}, "the runner stops its child's process group at a deadline or the memory guard (pidfd_send_signal has its own rule)"},
	{[]string{"getpid", "gettid", "getrusage", "set_tid_address", "set_robust_list", "rseq", "arch_prctl", "prctl", "prlimit64"}, "thread and process set-up by the Go runtime and glibc"},
	{[]string{"brk", "mmap", "munmap", "mprotect", "madvise", "mlock"}, "memory, inside the cgroup's limit"},
	{[]string{"rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack"}, "signal handling; the Go runtime preempts goroutines with signals"},
	{[]string{"futex", "sched_yield", "sched_getaffinity", "nanosleep", "clock_nanosleep"}, "threads wait, yield and sleep"},
	{[]string{"read", "write", "pread64", "pwrite64", "lseek", "sendfile", "close", "close_range", "dup2", "dup3", "fcntl", "ioctl", "fdatasync"}, "reading and writing open files, pipes and sockets"},
	{[]string{"openat", "newfstatat", "fstat", "statfs", "fstatfs", "getdents64", "readlink", "readlinkat", "access", "faccessat2", "getcwd"}, "opening and inspecting files; the root is read-only"},
	{[]string{"mkdir", "mkdirat", "rmdir", "unlink", "unlinkat", "chmod"}, "files in /tmp, the one writable place"},
	{[]string{"pipe2", "eventfd2", "epoll_create1", "epoll_ctl", "epoll_pwait", "poll", "pselect6"}, "pipes and waiting on descriptors"},
	{[]string{"bind", "connect", "getsockname", "getpeername", "sendto", "recvfrom"}, "local sockets: the network namespace has only lo, so nothing leaves the container (socket has its own rules)"},
	{[]string{"getuid", "geteuid", "getgid", "getegid", "getgroups"}, "a process reads its own identity"},
	{[]string{"sysinfo", "getrandom"}, "memory totals and random numbers"},
}

// denied are refused with FilterErrno, so the hello's probes can tell this
// filter's refusal from the kernel's. Everything else outside allowed is
// refused with EPERM.
var denied = []syscalls{
	{[]string{"io_uring_setup", "io_uring_enter", "io_uring_register"}, "io_uring's operations bypass seccomp entirely"},
	{[]string{"ptrace"}, "no process inspects or controls another"},
	{[]string{"rt_sigqueueinfo", "rt_tgsigqueueinfo"}, "a siginfo of the sender's choosing forges a fault signal, of which the runner would die"},
	{[]string{"userfaultfd"}, "page faults handled in user space stretch kernel races"},
	{[]string{"bpf"}, "no BPF programs or maps"},
	{[]string{"perf_event_open"}, "no performance counters: a side channel and a kernel surface"},
	{[]string{"keyctl", "add_key", "request_key"}, "the kernel keyring is not namespaced"},
	{[]string{"unshare", "setns"}, "no new or other namespaces"},
	{[]string{"mount", "umount2", "pivot_root", "fsopen", "fsmount", "fsconfig", "fspick", "move_mount", "open_tree", "mount_setattr"}, "no filesystem is mounted or moved"},
	{[]string{"kexec_load", "kexec_file_load"}, "no new kernel"},
	{[]string{"init_module", "finit_module", "delete_module"}, "no kernel modules"},
	{[]string{"open_by_handle_at", "name_to_handle_at"}, "file handles reach files outside the container's root"},
}

// SeccompProbes are the denied syscalls the runner calls, with arguments
// the kernel rejects anyway, to prove in its hello that this filter is the
// one loaded: each must fail with FilterErrno.
var SeccompProbes = []string{
	"io_uring_setup", "ptrace", "personality", "userfaultfd", "bpf", "perf_event_open",
	"keyctl", "add_key", "unshare", "mount", "kexec_load", "open_by_handle_at",
	"socket(AF_ALG)", "socket(AF_VSOCK)",
}
