package limits

// The syscall filter's proof, as the boundary table states it (the filter
// itself is package limits/seccomp's): the errno the filter answers and
// the calls the runner's hello probes it with.

// FilterErrno is the errno the filter answers for each syscall the runner
// probes (SeccompProbes). No Linux syscall returns it itself (errnos end
// at 133; libseccomp takes values below MAX_ERRNO, 4095): a probe that gets
// it was refused by this filter, not by the kernel (which answers EINVAL,
// EFAULT or EPERM to the probes' arguments) nor by another profile.
const FilterErrno = 4094

// SeccompProbes are the denied syscalls the runner calls, with arguments
// the kernel rejects anyway, to prove in its hello that this filter is the
// one loaded: each must fail with FilterErrno.
var SeccompProbes = []string{
	"io_uring_setup", "ptrace", "personality", "userfaultfd", "bpf", "perf_event_open",
	"keyctl", "add_key", "unshare", "mount", "kexec_load", "open_by_handle_at",
	"socket(AF_ALG)", "socket(AF_VSOCK)", "process_vm_readv", "rt_sigqueueinfo", "memfd_secret",
}
