package limits

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestSeccompProfileRefusesTheKernelSurfaces: nothing the policy closes is
// allowed, on any rule, and each probed syscall is answered with the
// filter's own errno.
func TestSeccompProfileRefusesTheKernelSurfaces(t *testing.T) {
	allowed := SeccompAllowed()
	for _, name := range []string{
		"io_uring_setup", "io_uring_enter", "io_uring_register", "ptrace", "userfaultfd", "bpf", "perf_event_open",
		"keyctl", "add_key", "request_key", "unshare", "setns", "mount", "umount2", "pivot_root", "fsopen", "open_tree",
		"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "open_by_handle_at",
		"name_to_handle_at", "clone3", "setuid", "capset", "chroot", "reboot", "swapon", "settimeofday",
	} {
		assert.Check(t, !slices.Contains(allowed, name), "%s is allowed", name)
	}
	var p seccompProfile
	assert.NilError(t, json.Unmarshal(SeccompProfile(), &p))
	assert.Equal(t, p.DefaultAction, actErrno)
	errnoOf := map[string]uint{}
	for _, r := range p.Syscalls {
		if r.Action == actErrno && r.ErrnoRet != nil {
			for _, n := range r.Names {
				errnoOf[n] = *r.ErrnoRet
			}
		}
	}
	for _, name := range SeccompProbes {
		assert.Check(t, is.Equal(errnoOf[name], uint(FilterErrno)), name)
	}
	assert.Check(t, is.Equal(errnoOf["clone3"], uint(errnoENOSYS)))
}

// TestSeccompConditions: clone is allowed only without namespace flags,
// personality only for the Linux persona and the query.
func TestSeccompConditions(t *testing.T) {
	var p seccompProfile
	assert.NilError(t, json.Unmarshal(SeccompProfile(), &p))
	var clone, personality []seccompSyscall
	for _, r := range p.Syscalls {
		switch {
		case slices.Contains(r.Names, "clone"):
			clone = append(clone, r)
		case slices.Contains(r.Names, "personality") && r.Action == actAllow:
			personality = append(personality, r)
		}
	}
	assert.Assert(t, is.Len(clone, 1))
	assert.DeepEqual(t, clone[0].Args, []seccompArg{{Index: 0, Value: cloneNamespaces, Op: cmpMaskedEq}})
	const newUser = 0x10000000
	assert.Check(t, cloneNamespaces&newUser != 0)
	assert.Check(t, is.Len(personality, 2))
	for _, r := range personality {
		assert.Check(t, len(r.Args) == 1 && r.Args[0].Op == cmpEq && (r.Args[0].Value == perLinux || r.Args[0].Value == perQuery))
	}
}

// TestSeccompProfileIsStable: the bytes and so the file name never change
// between calls; the logging profile differs only in its default action.
func TestSeccompProfileIsStable(t *testing.T) {
	assert.Check(t, bytes.Equal(SeccompProfile(), SeccompProfile()))
	assert.Check(t, is.Len(SeccompSHA256(), 64))
	assert.Check(t, is.Equal(SeccompFileName(), "seccomp-"+SeccompSHA256()+".json"))
	var enforce, logging seccompProfile
	assert.NilError(t, json.Unmarshal(SeccompProfile(), &enforce))
	assert.NilError(t, json.Unmarshal(SeccompLogProfile(), &logging))
	assert.Equal(t, logging.DefaultAction, actLog)
	assert.DeepEqual(t, logging.Syscalls, enforce.Syscalls)
	t.Logf("%d syscalls allowed", len(SeccompAllowed()))
}
