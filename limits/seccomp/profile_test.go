package seccomp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// TestSeccompProfileRefusesTheKernelSurfaces: nothing the policy closes is
// allowed, on any rule, and each probed syscall is answered with the
// filter's own errno.
func TestSeccompProfileRefusesTheKernelSurfaces(t *testing.T) {
	allowed := Allowed()
	for _, name := range []string{
		"io_uring_setup", "io_uring_enter", "io_uring_register", "ptrace", "userfaultfd", "bpf", "perf_event_open",
		"keyctl", "add_key", "request_key", "unshare", "setns", "mount", "umount2", "pivot_root", "fsopen", "open_tree",
		"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "open_by_handle_at",
		"name_to_handle_at", "clone3", "chroot", "reboot", "swapon", "settimeofday", "process_vm_readv",
		"process_vm_writev", "kcmp", "pidfd_getfd", "process_madvise", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
		"memfd_secret", "modify_ldt", "move_pages", "migrate_pages", "mbind",
	} {
		assert.Check(t, !slices.Contains(allowed, name), "%s is allowed", name)
	}
	var p seccompProfile
	assert.NilError(t, json.Unmarshal(Profile(), &p))
	assert.Equal(t, p.DefaultAction, actErrno)
	// Each probe with the arguments the runner gives it.
	calls := map[string]struct {
		name string
		args [6]uint64
	}{
		"personality":      {"personality", [6]uint64{perLinux32}},
		"socket(AF_ALG)":   {"socket", [6]uint64{38, ^uint64(0)}},
		"socket(AF_VSOCK)": {"socket", [6]uint64{40, ^uint64(0)}},
	}
	for _, probe := range limits.SeccompProbes {
		c, ok := calls[probe]
		if !ok {
			c.name = probe
		}
		assert.Check(t, is.Equal(decide(t, p, c.name, c.args), "errno 4094"), probe)
	}
	assert.Check(t, is.Equal(decide(t, p, "clone3", [6]uint64{}), "errno 38"))
	assert.Check(t, is.Equal(decide(t, p, "rt_sigqueueinfo", [6]uint64{1, 11}), "errno 4094"))
	assert.Check(t, is.Equal(decide(t, p, "pidfd_send_signal", [6]uint64{3, 11, 0x7ffc0000}), "errno 4094"))
	assert.Check(t, is.Equal(decide(t, p, "pidfd_send_signal", [6]uint64{3, 15, 0}), "allow"))
}

// decide is what the filter does with a call: the action of the rules
// that match it, or the default. Two matching rules with different
// actions fail the test: the profile must not depend on how libseccomp
// ranks them.
func decide(t *testing.T, p seccompProfile, name string, args [6]uint64) string {
	t.Helper()
	got := ""
	for _, r := range p.Syscalls {
		if !slices.Contains(r.Names, name) || !matches(r.Args, args) {
			continue
		}
		action := "allow"
		if r.Action != actAllow {
			action = fmt.Sprintf("errno %d", *r.ErrnoRet)
		}
		assert.Check(t, got == "" || got == action, "%s%v: rules disagree: %s and %s", name, args, got, action)
		got = action
	}
	if got == "" {
		got = fmt.Sprintf("errno %d", *p.DefaultErrnoRet)
	}
	return got
}

func matches(conds []seccompArg, args [6]uint64) bool {
	for _, c := range conds {
		v := args[c.Index]
		ok := false
		switch c.Op {
		case cmpEq:
			ok = v == c.Value
		case cmpNe:
			ok = v != c.Value
		case cmpGe:
			ok = v >= c.Value
		case cmpMaskedEq:
			ok = v&c.Value == c.ValueTwo
		default:
			panic("no such comparison: " + c.Op)
		}
		if !ok {
			return false
		}
	}
	return true
}

// TestSeccompSocketFamilies: socket and socketpair are allowed exactly for
// AF_UNIX, AF_INET, AF_INET6 and routing netlink; every other family, and
// any value with bits beyond an int, gets the filter's errno.
func TestSeccompSocketFamilies(t *testing.T) {
	var p seccompProfile
	assert.NilError(t, json.Unmarshal(Profile(), &p))
	for _, name := range []string{"socket", "socketpair"} {
		for domain := uint64(0); domain < 300; domain++ {
			for _, proto := range []uint64{0, 9, 15} {
				want := "errno 4094"
				if domain == afUnix || domain == afInet || domain == afInet6 || (domain == afNetlink && proto == netlinkRoute) {
					want = "allow"
				}
				assert.Check(t, is.Equal(decide(t, p, name, [6]uint64{domain, 1, proto}), want), "%s(%d, _, %d)", name, domain, proto)
			}
		}
		for _, v := range []uint64{1 << 32, 1<<32 | afUnix, 1<<32 | afInet, ^uint64(0), 1 << 63} {
			assert.Check(t, is.Equal(decide(t, p, name, [6]uint64{v}), "errno 4094"), "%s(%#x)", name, v)
		}
	}
}

// TestSeccompConditions: clone is allowed only without namespace flags,
// personality only for the Linux persona and the query.
func TestSeccompConditions(t *testing.T) {
	var p seccompProfile
	assert.NilError(t, json.Unmarshal(Profile(), &p))
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
	assert.Check(t, bytes.Equal(Profile(), Profile()))
	assert.Check(t, is.Len(SHA256(), 64))
	assert.Check(t, is.Equal(FileName(), "seccomp-"+SHA256()+".json"))
	var enforce, logging seccompProfile
	assert.NilError(t, json.Unmarshal(Profile(), &enforce))
	assert.NilError(t, json.Unmarshal(LogProfile(), &logging))
	assert.Equal(t, logging.DefaultAction, actLog)
	assert.DeepEqual(t, logging.Syscalls, enforce.Syscalls)
	t.Logf("%d syscalls allowed", len(Allowed()))
}
