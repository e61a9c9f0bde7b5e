package seccomp

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// The program is run here by a small interpreter of the classic BPF the
// kernel accepts for seccomp, written from the kernel's rules rather than
// borrowed: golang.org/x/net/bpf's VM loads packet words big-endian, where
// seccomp_data is in the machine's order, and it cannot count the
// instructions a call costs.

// seccompData is the kernel's struct seccomp_data.
type seccompData struct {
	nr   uint32
	arch uint32
	args [6]uint64
}

func (d seccompData) bytes() []byte {
	b := make([]byte, 64)
	binary.LittleEndian.PutUint32(b[0:], d.nr)
	binary.LittleEndian.PutUint32(b[4:], d.arch)
	for i, a := range d.args {
		binary.LittleEndian.PutUint64(b[seccompDataArgs+8*i:], a)
	}
	return b
}

// runBPF runs prog on d and returns its return value and how many
// instructions it executed.
func runBPF(prog []SockFilter, d seccompData) (ret uint32, steps int, err error) {
	data := d.bytes()
	var acc uint32
	for pc := 0; ; pc++ {
		if pc >= len(prog) {
			return 0, steps, fmt.Errorf("ran off the end at %d", pc)
		}
		in := prog[pc]
		steps++
		jump := func(taken bool) {
			if taken {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		}
		switch in.Code {
		case 0x20: // ld [k]
			if in.K%4 != 0 || in.K+4 > uint32(len(data)) {
				return 0, steps, fmt.Errorf("load at %d out of seccomp_data", in.K)
			}
			acc = binary.LittleEndian.Uint32(data[in.K:])
		case 0x54: // and #k
			acc &= in.K
		case 0x05: // ja
			pc += int(in.K)
		case 0x15:
			jump(acc == in.K)
		case 0x25:
			jump(acc > in.K)
		case 0x35:
			jump(acc >= in.K)
		case 0x45:
			jump(acc&in.K != 0)
		case 0x06:
			return in.K, steps, nil
		default:
			return 0, steps, fmt.Errorf("opcode %#x at %d", in.Code, pc)
		}
	}
}

func mustFilter(t *testing.T) []SockFilter {
	t.Helper()
	prog, err := Filter()
	assert.NilError(t, err)
	return prog
}

// arches are the architectures the filter compiles for; each test of the
// program runs on each one's.
var arches = []*syscallArch{archX86_64, archAarch64}

func filterOn(t *testing.T, arch *syscallArch) []SockFilter {
	t.Helper()
	prog, err := compileSeccomp(seccompRules(), arch)
	assert.NilError(t, err)
	return prog
}

func call(name string, args ...uint64) seccompData { return callOn(archX86_64, name, args...) }

func callOn(arch *syscallArch, name string, args ...uint64) seccompData {
	nr, ok := arch.nums[name]
	if !ok {
		panic("no syscall " + name + " on " + arch.name)
	}
	d := seccompData{nr: nr, arch: arch.audit}
	copy(d.args[:], args)
	return d
}

const (
	retAllow  = seccompRetAllow
	retFilter = seccompRetErrno | limits.FilterErrno
	retEPERM  = seccompRetErrno | errnoEPERM
	retENOSYS = seccompRetErrno | errnoENOSYS
	retKill   = seccompRetKillThread
)

// probeCalls are the runner's probes (isolation/container/runner/probes.go) with
// the arguments it passes, on arch.
func probeCalls(arch *syscallArch) map[string]seccompData {
	call := func(name string, args ...uint64) seccompData { return callOn(arch, name, args...) }
	return map[string]seccompData{
		"io_uring_setup":    call("io_uring_setup", 0, 0, 0),
		"ptrace":            call("ptrace", ^uint64(0), 0, 0),
		"personality":       call("personality", perLinux32),
		"userfaultfd":       call("userfaultfd", ^uint64(0)),
		"bpf":               call("bpf", ^uint64(0), 0, 0),
		"perf_event_open":   call("perf_event_open", 0, 0, ^uint64(0), ^uint64(0)),
		"keyctl":            call("keyctl", ^uint64(0), 0, 0),
		"add_key":           call("add_key"),
		"unshare":           call("unshare", ^uint64(0)),
		"mount":             call("mount"),
		"kexec_load":        call("kexec_load", 0, 0, 0, ^uint64(0)),
		"open_by_handle_at": call("open_by_handle_at", ^uint64(0), 0, 0),
		"process_vm_readv":  call("process_vm_readv", 0, 0, 0, 0, 0, ^uint64(0)),
		"rt_sigqueueinfo":   call("rt_sigqueueinfo", 1, 23, 0),
		"memfd_secret":      call("memfd_secret", ^uint64(0)),
		"socket(AF_ALG)":    call("socket", 38, ^uint64(0), 0),
		"socket(AF_VSOCK)":  call("socket", 40, ^uint64(0), 0),
	}
}

func TestSeccompFilterProbesGetFilterErrno(t *testing.T) {
	for _, arch := range arches {
		prog := filterOn(t, arch)
		calls := probeCalls(arch)
		probes := slices.Clone(limits.SeccompProbes)
		known := make([]string, 0, len(calls))
		for n := range calls {
			known = append(known, n)
		}
		sort.Strings(probes)
		sort.Strings(known)
		assert.DeepEqual(t, known, probes) // a new probe needs its call here
		for name, d := range calls {
			ret, _, err := runBPF(prog, d)
			assert.NilError(t, err)
			assert.Check(t, is.Equal(ret, uint32(retFilter)), "%s on %s", name, arch.name)
		}
	}
}

// TestSeccompFilterDeniesTheSameGroupsOnEachArch: every denied name an
// architecture has gets limits.FilterErrno on it, whatever its number there,
// and a denied name it lacks is one the table says why of.
func TestSeccompFilterDeniesTheSameGroupsOnEachArch(t *testing.T) {
	for _, arch := range arches {
		prog := filterOn(t, arch)
		n := 0
		for _, g := range denied {
			for _, name := range g.names {
				if _, ok := arch.nums[name]; !ok {
					assert.Check(t, arch.absent[name] != "", "%s lacks %s and does not say why", arch.name, name)
					continue
				}
				ret, _, err := runBPF(prog, callOn(arch, name, ^uint64(0), ^uint64(0), ^uint64(0)))
				assert.NilError(t, err)
				assert.Check(t, is.Equal(ret, uint32(retFilter)), "%s on %s", name, arch.name)
				n++
			}
		}
		t.Logf("%s: %d denied syscalls answer %d", arch.name, n, limits.FilterErrno)
	}
}

func TestSeccompFilterCases(t *testing.T) {
	prog := filterOn(t, archX86_64)
	const threadFlags = 0x3d0f00 // Go's and glibc's pthread clone flags
	for _, c := range []struct {
		name string
		d    seccompData
		want uint32
	}{
		{"read", call("read", 0, 0, 0), retAllow},
		{"write", call("write", 1, 0, 0), retAllow},
		{"getpid", call("getpid"), retAllow},
		{"clone of a thread", call("clone", threadFlags), retAllow},
		{"clone of a process", call("clone", 17), retAllow}, // SIGCHLD
		{"clone into a user namespace", call("clone", threadFlags|0x10000000), retEPERM},
		{"clone into a network namespace", call("clone", 0x40000000|17), retEPERM},
		{"clone3", call("clone3", 0, 88), retENOSYS},
		{"socket(AF_UNIX)", call("socket", 1, 1, 0), retAllow},
		{"socket(AF_INET)", call("socket", 2, 1, 0), retAllow},
		{"socket(AF_INET6)", call("socket", 10, 2, 0), retAllow},
		{"socketpair(AF_UNIX)", call("socketpair", 1, 1, 0, 0), retAllow},
		{"socket(AF_NETLINK, NETLINK_ROUTE)", call("socket", 16, 3, 0), retAllow},
		{"socket(AF_NETLINK, 9)", call("socket", 16, 3, 9), retFilter},
		{"socket(AF_PACKET)", call("socket", 17, 3, 0), retFilter},
		{"socket(0)", call("socket", 0, 1, 0), retFilter},
		// libseccomp compares the whole 64-bit register; the kernel would
		// read the int 1 (AF_UNIX), but the OCI profile's rules see
		// 1<<32|1, which is at least 17: refused like any other family.
		{"socket(1<<32|AF_UNIX)", call("socket", 1<<32|1, 1, 0), retFilter},
		{"socket(AF_NETLINK, 1<<32)", call("socket", 16, 3, 1<<32), retFilter},
		{"personality(PER_LINUX)", call("personality", 0), retAllow},
		{"personality(query)", call("personality", 0xffffffff), retAllow},
		{"personality(PER_LINUX32)", call("personality", 8), retFilter},
		{"personality(other)", call("personality", 0x0400000), retEPERM},
		{"personality(1<<32)", call("personality", 1<<32), retEPERM},
		{"pidfd_send_signal without siginfo", call("pidfd_send_signal", 3, 9, 0, 0), retAllow},
		{"pidfd_send_signal with siginfo", call("pidfd_send_signal", 3, 9, 0x7fff0000, 0), retFilter},
		{"io_uring_enter", call("io_uring_enter"), retFilter},
		{"chroot (not in the table)", call("chroot"), retEPERM},
		{"reboot (not in the table)", call("reboot"), retEPERM},
		{"number 134 (uselib, not in the table)", seccompData{nr: 134, arch: auditArchX86_64}, retEPERM},
		{"removexattrat (the largest number named)", call("removexattrat"), retAllow},
		{"number 467 (above the table)", seccompData{nr: 467, arch: auditArchX86_64}, retENOSYS},
		{"number 500", seccompData{nr: 500, arch: auditArchX86_64}, retENOSYS},
		{"number 0xffffffff", seccompData{nr: 0xffffffff, arch: auditArchX86_64}, retKill}, // -1 has the x32 bit
		{"x32 getpid", seccompData{nr: x32SyscallBit | 39, arch: auditArchX86_64}, retKill},
		{"i386 getpid", seccompData{nr: 20, arch: 0x40000003}, retKill},
		{"aarch64 getpid", seccompData{nr: 172, arch: 0xc00000b7}, retKill},
	} {
		ret, _, err := runBPF(prog, c.d)
		assert.NilError(t, err, c.name)
		assert.Check(t, is.Equal(ret, c.want), "%s: got %#x", c.name, ret)
	}
}

// TestSeccompFilterCasesOnAarch64: the same answers by aarch64's numbers;
// calls through AArch32 or with x86_64's arch are killed, and the x32 bit
// means nothing there: a number above the table, ENOSYS.
func TestSeccompFilterCasesOnAarch64(t *testing.T) {
	prog := filterOn(t, archAarch64)
	call := func(name string, args ...uint64) seccompData { return callOn(archAarch64, name, args...) }
	const auditArchARM = 0x40000028
	for _, c := range []struct {
		name string
		d    seccompData
		want uint32
	}{
		{"read (63)", call("read", 0, 0, 0), retAllow},
		{"openat (56)", call("openat", 0, 0, 0), retAllow},
		{"newfstatat (79)", call("newfstatat"), retAllow},
		{"getpid (172)", call("getpid"), retAllow},
		{"clone of a thread (220)", call("clone", 0x3d0f00), retAllow},
		{"clone into a user namespace", call("clone", 0x3d0f00|0x10000000), retEPERM},
		{"clone3", call("clone3", 0, 88), retENOSYS},
		{"socket(AF_INET)", call("socket", 2, 1, 0), retAllow},
		{"socket(AF_PACKET)", call("socket", 17, 3, 0), retFilter},
		{"personality(PER_LINUX32)", call("personality", 8), retFilter},
		{"personality(PER_LINUX)", call("personality", 0), retAllow},
		{"io_uring_enter", call("io_uring_enter"), retFilter},
		{"ptrace (117)", call("ptrace"), retFilter},
		{"chroot (not in the table)", call("chroot"), retEPERM},
		{"number 3 (io_cancel here, close on x86_64)", seccompData{nr: 3, arch: auditArchAarch64}, retAllow},
		{"removexattrat (the largest number named)", call("removexattrat"), retAllow},
		{"number 467 (above the table)", seccompData{nr: 467, arch: auditArchAarch64}, retENOSYS},
		{"the x32 bit and 172", seccompData{nr: x32SyscallBit | 172, arch: auditArchAarch64}, retENOSYS},
		{"AArch32 getpid", seccompData{nr: 20, arch: auditArchARM}, retKill},
		{"x86_64 getpid", seccompData{nr: 39, arch: auditArchX86_64}, retKill},
	} {
		ret, _, err := runBPF(prog, c.d)
		assert.NilError(t, err, c.name)
		assert.Check(t, is.Equal(ret, c.want), "%s: got %#x", c.name, ret)
	}
}
