package seccomp

import (
	"testing"

	"golang.org/x/sys/unix"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// On arm64 the generated aarch64 numbers are checked against x/sys's
// constants for the syscalls the filter's conditions and probes use, and
// the filter this process would install is aarch64's.
func TestSeccompFilterIsAarch64sOnArm64(t *testing.T) {
	assert.Check(t, is.Equal(uint64(auditArchAarch64), uint64(unix.AUDIT_ARCH_AARCH64)))
	for name, nr := range map[string]int{
		"clone": unix.SYS_CLONE, "clone3": unix.SYS_CLONE3, "socket": unix.SYS_SOCKET, "socketpair": unix.SYS_SOCKETPAIR,
		"personality": unix.SYS_PERSONALITY, "pidfd_send_signal": unix.SYS_PIDFD_SEND_SIGNAL, "getpid": unix.SYS_GETPID,
		"io_uring_setup": unix.SYS_IO_URING_SETUP, "memfd_secret": unix.SYS_MEMFD_SECRET, "removexattrat": unix.SYS_REMOVEXATTRAT,
		"openat": unix.SYS_OPENAT, "ptrace": unix.SYS_PTRACE,
	} {
		assert.Check(t, is.Equal(int(sysnumAarch64[name]), nr), name)
	}
	prog := mustFilter(t)
	ret, _, err := runBPF(prog, seccompData{nr: uint32(unix.SYS_GETPID), arch: unix.AUDIT_ARCH_AARCH64})
	assert.NilError(t, err)
	assert.Check(t, is.Equal(ret, uint32(retAllow)))
}
