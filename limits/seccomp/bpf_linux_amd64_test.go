package seccomp

import (
	"testing"

	"golang.org/x/sys/unix"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// The package spells the kernel's constants itself so it builds on every
// host; here they are checked against x/sys's, and the generated numbers
// against x/sys's for the syscalls the filter's conditions and probes use.
func TestSeccompFilterConstantsMatchTheKernel(t *testing.T) {
	for _, c := range []struct {
		name      string
		ours, sys uint64
	}{
		{"BPF_LD|BPF_W|BPF_ABS", bpfLdWAbs, unix.BPF_LD | unix.BPF_W | unix.BPF_ABS},
		{"BPF_ALU|BPF_AND|BPF_K", bpfAndK, unix.BPF_ALU | unix.BPF_AND | unix.BPF_K},
		{"BPF_JMP|BPF_JA", bpfJa, unix.BPF_JMP | unix.BPF_JA},
		{"BPF_JMP|BPF_JEQ|BPF_K", bpfJeqK, unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K},
		{"BPF_JMP|BPF_JGT|BPF_K", bpfJgtK, unix.BPF_JMP | unix.BPF_JGT | unix.BPF_K},
		{"BPF_JMP|BPF_JGE|BPF_K", bpfJgeK, unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K},
		{"BPF_JMP|BPF_JSET|BPF_K", bpfJsetK, unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K},
		{"BPF_RET|BPF_K", bpfRetK, unix.BPF_RET | unix.BPF_K},
		{"BPF_MAXINSNS", bpfMaxInsns, unix.BPF_MAXINSNS},
		{"AUDIT_ARCH_X86_64", auditArchX86_64, unix.AUDIT_ARCH_X86_64},
		{"AUDIT_ARCH_AARCH64", auditArchAarch64, unix.AUDIT_ARCH_AARCH64},
		{"SECCOMP_RET_KILL_THREAD", seccompRetKillThread, unix.SECCOMP_RET_KILL_THREAD},
		{"SECCOMP_RET_ERRNO", seccompRetErrno, unix.SECCOMP_RET_ERRNO},
		{"SECCOMP_RET_ALLOW", seccompRetAllow, unix.SECCOMP_RET_ALLOW},
		{"EPERM", errnoEPERM, uint64(unix.EPERM)},
		{"ENOSYS", errnoENOSYS, uint64(unix.ENOSYS)},
		{"sizeof(struct sock_filter)", 8, unix.SizeofSockFilter},
	} {
		assert.Check(t, is.Equal(c.ours, c.sys), c.name)
	}
	for name, nr := range map[string]int{
		"clone": unix.SYS_CLONE, "clone3": unix.SYS_CLONE3, "socket": unix.SYS_SOCKET, "socketpair": unix.SYS_SOCKETPAIR,
		"personality": unix.SYS_PERSONALITY, "pidfd_send_signal": unix.SYS_PIDFD_SEND_SIGNAL, "getpid": unix.SYS_GETPID,
		"io_uring_setup": unix.SYS_IO_URING_SETUP, "memfd_secret": unix.SYS_MEMFD_SECRET, "removexattrat": unix.SYS_REMOVEXATTRAT,
	} {
		assert.Check(t, is.Equal(int(sysnumX86_64[name]), nr), name)
	}
}
