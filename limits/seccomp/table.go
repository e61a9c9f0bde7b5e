package seccomp

// syscalls is a group of syscalls with the one reason they share.
type syscalls struct {
	names []string
	why   string
}

// allowed is drawn from what programs need: the syscalls Docker's default
// profile (moby's profiles/seccomp/default.json) allows a process without
// capabilities on the 64-bit ABIs, grouped by what a program does with
// them, minus the groups in denied. Changing identity, the clock, or
// creating devices stays allowed as there: the kernel refuses it without
// capabilities. clone, personality, socket, socketpair and
// pidfd_send_signal are allowed with argument conditions (profile.go,
// conditions.go).
var allowed = []syscalls{
	{[]string{"execve", "execveat", "fork", "vfork", "exit", "exit_group", "wait4", "waitid"},
		"processes start, end and are waited for (clone has its own rule)"},
	{[]string{"restart_syscall", "rt_sigreturn", "uretprobe"}, "returns the kernel's own trampolines make"},
	{[]string{"getpid", "getppid", "gettid", "getpgid", "getpgrp", "getsid", "setsid", "setpgid",
		"getuid", "geteuid", "getgid", "getegid", "getgroups", "getresuid", "getresgid",
		"setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid", "setfsuid", "setfsgid", "setgroups", "capget", "capset"},
		"a process reads its identity; changing it fails without capabilities, as the kernel decides"},
	{[]string{"kill", "tkill", "tgkill", "pidfd_open", "rt_sigaction", "rt_sigprocmask", "rt_sigpending", "rt_sigsuspend",
		"rt_sigtimedwait", "sigaltstack", "signalfd", "signalfd4", "pause", "alarm", "getitimer", "setitimer"},
		"signals among the program's own processes (the runner ignores them) and interval timers"},
	{[]string{"clock_gettime", "clock_getres", "clock_nanosleep", "nanosleep", "gettimeofday", "time", "times",
		"timer_create", "timer_delete", "timer_getoverrun", "timer_gettime", "timer_settime",
		"timerfd_create", "timerfd_gettime", "timerfd_settime", "adjtimex", "clock_adjtime"},
		"clocks, sleeps and timers (setting the clock needs CAP_SYS_TIME)"},
	{[]string{"futex", "futex_requeue", "futex_wait", "futex_waitv", "futex_wake", "set_robust_list", "get_robust_list",
		"set_tid_address", "rseq", "membarrier", "set_thread_area", "get_thread_area", "arch_prctl", "prctl"},
		"threads and their locks, as the Go runtime and glibc set them up"},
	{[]string{"sched_yield", "sched_getaffinity", "sched_setaffinity", "sched_getattr", "sched_setattr", "sched_getparam",
		"sched_setparam", "sched_getscheduler", "sched_setscheduler", "sched_get_priority_max", "sched_get_priority_min",
		"sched_rr_get_interval", "getcpu", "getpriority", "setpriority", "ioprio_get", "ioprio_set"},
		"scheduling and priority, within the one CPU's quota (raising priority needs CAP_SYS_NICE)"},
	{[]string{"getrlimit", "setrlimit", "prlimit64", "getrusage", "sysinfo", "uname", "umask", "getrandom"},
		"limits (only lowered), usage, the kernel's name, random numbers"},
	{[]string{"seccomp", "landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self"},
		"a program may restrict itself further, never less"},
	{[]string{"brk", "mmap", "munmap", "mremap", "mprotect", "madvise", "mincore", "msync", "mlock", "mlock2", "mlockall",
		"munlock", "munlockall", "mseal", "map_shadow_stack", "pkey_alloc", "pkey_free", "pkey_mprotect", "remap_file_pages",
		"memfd_create", "process_mrelease", "cachestat"},
		"memory, inside the cgroup's limit"},
	{[]string{"read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "preadv2", "pwritev", "pwritev2", "lseek",
		"sendfile", "splice", "tee", "vmsplice", "copy_file_range", "close", "close_range", "dup", "dup2", "dup3", "fcntl",
		"ioctl", "flock", "fsync", "fdatasync", "sync", "syncfs", "sync_file_range", "fadvise64", "readahead", "fallocate",
		"ftruncate", "truncate"},
		"reading and writing open files, pipes and sockets"},
	{[]string{"open", "openat", "openat2", "creat", "stat", "lstat", "fstat", "newfstatat", "statx", "statfs", "fstatfs",
		"access", "faccessat", "faccessat2", "getdents", "getdents64", "readlink", "readlinkat", "getcwd", "chdir", "fchdir",
		"mkdir", "mkdirat", "rmdir", "unlink", "unlinkat", "rename", "renameat", "renameat2", "link", "linkat",
		"symlink", "symlinkat", "mknod", "mknodat", "chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown",
		"fchownat", "lchown", "utime", "utimes", "utimensat", "futimesat"},
		"opening, naming and inspecting files; the root is read-only, so only /tmp changes (devices need CAP_MKNOD)"},
	{[]string{"listmount", "statmount"}, "the container's own mounts, read only, as /proc/self/mountinfo shows them"},
	{[]string{"getxattr", "lgetxattr", "fgetxattr", "getxattrat", "listxattr", "llistxattr", "flistxattr", "listxattrat",
		"setxattr", "lsetxattr", "fsetxattr", "setxattrat", "removexattr", "lremovexattr", "fremovexattr", "removexattrat"},
		"extended file attributes"},
	{[]string{"inotify_init", "inotify_init1", "inotify_add_watch", "inotify_rm_watch", "fanotify_mark"},
		"watching files for changes (fanotify_init needs CAP_SYS_ADMIN)"},
	{[]string{"poll", "ppoll", "select", "pselect6", "epoll_create", "epoll_create1", "epoll_ctl", "epoll_ctl_old",
		"epoll_wait", "epoll_wait_old", "epoll_pwait", "epoll_pwait2", "eventfd", "eventfd2", "pipe", "pipe2"},
		"pipes, events and waiting on descriptors (asyncio's event loop)"},
	{[]string{"io_setup", "io_destroy", "io_submit", "io_cancel", "io_getevents", "io_pgetevents"},
		"the older asynchronous I/O interface, which goes through seccomp call by call (io_uring does not)"},
	{[]string{"accept", "accept4", "bind", "connect", "listen", "getsockname", "getpeername", "getsockopt", "setsockopt",
		"sendto", "recvfrom", "sendmsg", "recvmsg", "sendmmsg", "recvmmsg", "shutdown"},
		"sockets on lo, the only interface: nothing leaves the container (socket has its own rules)"},
	{[]string{"mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
		"msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop", "semtimedop", "semctl", "shmget", "shmat", "shmdt", "shmctl"},
		"System V and POSIX IPC, in the container's own IPC namespace"},
}

// denied are refused with limits.FilterErrno, so the hello's probes can tell this
// filter's refusal from the kernel's: kernel surfaces that no program here
// needs and attackers use. Everything else outside allowed is refused with
// EPERM.
var denied = []syscalls{
	{[]string{"io_uring_setup", "io_uring_enter", "io_uring_register"}, "io_uring's operations bypass seccomp entirely"},
	{[]string{"ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd", "process_madvise"},
		"no process inspects, reads or controls another's memory or descriptors, the runner's least of all"},
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
	{[]string{"mbind", "set_mempolicy", "get_mempolicy", "set_mempolicy_home_node", "migrate_pages", "move_pages"},
		"NUMA placement: one CPU, and page moves reach other processes' memory"},
	{[]string{"memfd_secret"}, "memory hidden from the kernel's own map: a young kernel surface no program here needs"},
	{[]string{"modify_ldt"}, "16-bit segment tables: no 64-bit program needs them, and they were a way into the kernel (CVE-2017-17053)"},
}
