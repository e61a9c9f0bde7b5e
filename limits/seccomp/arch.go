package seccomp

import (
	"fmt"
	"runtime"
)

// syscallArch is an architecture the policy's filter compiles for: how
// the kernel names it in seccomp_data and how it numbers the table's
// syscalls. The table is one for all architectures, as the OCI profile
// is; each architecture lacks some of its names.
type syscallArch struct {
	name  string // the kernel's: x86_64, aarch64
	audit uint32 // AUDIT_ARCH_* in seccomp_data.arch
	nums  map[string]uint32
	// absent names the table's syscalls the architecture lacks, each with
	// why. Libseccomp skips a name unknown on an architecture; the
	// compiler does too, but only for the names listed here: any other
	// unknown name is a typo or a syscall newer than x/sys (then
	// gen_syscalls.go's extra list gets its number), and compiling fails.
	absent map[string]string
	// x32 marks x86_64, whose numbers with x32SyscallBit set are calls
	// through the x32 ABI.
	x32 bool
}

// Values of seccomp_data.arch (linux/audit.h), checked against x/sys by
// a Linux test.
const (
	auditArchX86_64  = 0xc000003e
	auditArchAarch64 = 0xc00000b7
)

var archX86_64 = &syscallArch{name: "x86_64", audit: auditArchX86_64, nums: sysnumX86_64, absent: map[string]string{}, x32: true}

// archAarch64: arm64 numbers its syscalls by asm-generic's table, which
// keeps one call where x86_64 kept the old one beside its successor.
var archAarch64 = &syscallArch{name: "aarch64", audit: auditArchAarch64, nums: sysnumAarch64, absent: absentOn(
	syscalls{[]string{"open", "creat", "stat", "lstat", "access", "readlink", "mkdir", "rmdir", "unlink", "rename",
		"link", "symlink", "mknod", "chmod", "chown", "lchown", "futimesat", "getdents"},
		"asm-generic has only the *at forms of path calls (openat, newfstatat, mkdirat...) and getdents64"},
	syscalls{[]string{"fork", "vfork", "dup2", "pipe", "poll", "select", "epoll_create", "epoll_wait", "eventfd",
		"signalfd", "inotify_init", "alarm", "pause", "time", "utime", "utimes", "getpgrp"},
		"asm-generic keeps only the newer form: clone, dup3, pipe2, ppoll, pselect6, epoll_create1, epoll_pwait, " +
			"eventfd2, signalfd4, inotify_init1, setitimer, rt_sigsuspend, clock_gettime, utimensat, getpgid"},
	syscalls{[]string{"arch_prctl", "set_thread_area", "get_thread_area", "modify_ldt", "epoll_ctl_old", "epoll_wait_old", "uretprobe"},
		"x86's own: its segment and thread-area registers, epoll's first draft, the uprobe return trampoline"},
)}

// absentOn is the names of groups, each with its group's why.
func absentOn(groups ...syscalls) map[string]string {
	m := map[string]string{}
	for _, g := range groups {
		for _, n := range g.names {
			m[n] = g.why
		}
	}
	return m
}

// nativeArch is the architecture the runner runs on, whose filter it
// installs.
func nativeArch() (*syscallArch, error) {
	switch runtime.GOARCH {
	case "amd64":
		return archX86_64, nil
	case "arm64":
		return archAarch64, nil
	}
	return nil, fmt.Errorf("seccomp filter: no syscall table for %s (amd64 and arm64 have one)", runtime.GOARCH)
}
