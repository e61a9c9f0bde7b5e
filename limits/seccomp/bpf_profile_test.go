package seccomp

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// refEval evaluates the profile Docker is given, as its JSON, on d: the
// independent reading the compiled program must agree with. More than one
// matching rule with different actions is an error: libseccomp's choice
// between them is its own, and the table avoids overlaps.
func refEval(p seccompProfile, arch *syscallArch, maxNr uint32, d seccompData) (uint32, error) {
	if d.arch != arch.audit || arch.x32 && d.nr&x32SyscallBit != 0 {
		return retKill, nil
	}
	if d.nr > maxNr {
		return retENOSYS, nil
	}
	def := uint32(seccompRetErrno) | uint32(*p.DefaultErrnoRet)
	var got []uint32
	for _, r := range p.Syscalls {
		if !slices.ContainsFunc(r.Names, func(n string) bool { nr, ok := arch.nums[n]; return ok && nr == d.nr }) {
			continue
		}
		if !slices.ContainsFunc(r.Args, func(a seccompArg) bool { return !refHolds(a, d.args[a.Index]) }) {
			ret := uint32(seccompRetAllow)
			if r.Action == actErrno {
				ret = seccompRetErrno | uint32(*r.ErrnoRet)
			}
			if !slices.Contains(got, ret) {
				got = append(got, ret)
			}
		}
	}
	switch len(got) {
	case 0:
		return def, nil
	case 1:
		return got[0], nil
	}
	return 0, fmt.Errorf("rules overlap: %#x", got)
}

func refHolds(a seccompArg, v uint64) bool {
	switch a.Op {
	case cmpEq:
		return v == a.Value
	case cmpNe:
		return v != a.Value
	case cmpGe:
		return v >= a.Value
	case cmpMaskedEq:
		return v&a.Value == a.ValueTwo
	}
	panic("op " + a.Op)
}

// boundaries are the values around each of a rule's operands on its
// argument: equal, one off, the high word set or flipped, the mask's edges.
func boundaries(conds []seccompArg) []uint64 {
	vs := []uint64{0, 1, 0xffffffff, 1 << 32, ^uint64(0), 0x7fffffff, 0x80000000}
	for _, c := range conds {
		for _, x := range []uint64{c.Value, c.ValueTwo} {
			vs = append(vs, x, x+1, x-1, x|1<<32, x^1<<63, x&0xffffffff, x|0xffffffff00000000)
		}
		if c.Op == cmpMaskedEq {
			for bit := uint64(1); bit != 0; bit <<= 1 {
				vs = append(vs, c.ValueTwo|bit&c.Value, c.ValueTwo|bit&^c.Value)
			}
		}
	}
	slices.Sort(vs)
	return slices.Compact(vs)
}

func TestSeccompFilterAgreesWithTheProfile(t *testing.T) {
	for _, arch := range arches {
		t.Run(arch.name, func(t *testing.T) { agreesWithTheProfile(t, arch) })
	}
}

func agreesWithTheProfile(t *testing.T, arch *syscallArch) {
	prog := filterOn(t, arch)
	var p seccompProfile
	assert.NilError(t, json.Unmarshal(Profile(), &p))
	var maxNr uint32
	conds := map[string]map[uint][]seccompArg{} // name -> argument -> conditions on it
	for _, r := range p.Syscalls {
		for _, n := range r.Names {
			nr, ok := arch.nums[n]
			if !ok {
				assert.Assert(t, arch.absent[n] != "", n)
				continue
			}
			maxNr = max(maxNr, nr)
			if conds[n] == nil {
				conds[n] = map[uint][]seccompArg{}
			}
			for _, a := range r.Args {
				conds[n][a.Index] = append(conds[n][a.Index], a)
			}
		}
	}
	checks := 0
	check := func(d seccompData) {
		t.Helper()
		want, err := refEval(p, arch, maxNr, d)
		assert.NilError(t, err, "nr %d args %#x", d.nr, d.args)
		got, _, err := runBPF(prog, d)
		assert.NilError(t, err)
		assert.Equal(t, got, want, "nr %d args %#x", d.nr, d.args)
		checks++
	}
	// Every number, named or not, with plain arguments.
	for nr := uint32(0); nr <= maxNr+70; nr++ {
		check(seccompData{nr: nr, arch: arch.audit})
		check(seccompData{nr: nr, arch: arch.audit, args: [6]uint64{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}})
	}
	// Each conditional syscall on the product of its arguments' boundaries.
	for name, byArg := range conds {
		idx := make([]uint, 0, len(byArg))
		for i := range byArg {
			idx = append(idx, i)
		}
		var walk func(k int, d seccompData)
		walk = func(k int, d seccompData) {
			if k == len(idx) {
				check(d)
				return
			}
			for _, v := range boundaries(byArg[idx[k]]) {
				d.args[idx[k]] = v
				walk(k+1, d)
			}
		}
		walk(0, callOn(arch, name))
	}
	// Another architecture's calls, and x86_64's x32 bit.
	check(seccompData{nr: 39, arch: auditArchX86_64 ^ auditArchAarch64 ^ arch.audit})
	check(seccompData{nr: x32SyscallBit | 39, arch: arch.audit})
	t.Logf("%d inputs agree", checks)
}

func TestSeccompFilterNamesOnEachArch(t *testing.T) {
	for _, arch := range arches {
		var missing []string
		for _, r := range seccompRules() {
			for _, n := range r.Names {
				if _, ok := arch.nums[n]; !ok {
					missing = append(missing, n)
				}
			}
		}
		for _, n := range missing {
			_, listed := arch.absent[n]
			assert.Check(t, listed, "%s has no %s number: add it to gen_syscalls.go's extra list, or to the architecture's absent names with why", n, arch.name)
		}
		for n := range arch.absent {
			assert.Check(t, slices.Contains(missing, n), "%s's absent names list %s, which has a number or is not in the table", arch.name, n)
		}
	}
	// Spot checks of the generated numbers against syscall_64.tbl and
	// asm-generic/unistd.h.
	for name, nr := range map[string]uint32{
		"read": 0, "clone": 56, "personality": 135, "uretprobe": 335, "clone3": 435,
		"futex_wake": 454, "futex_wait": 455, "futex_requeue": 456, "mseal": 462, "removexattrat": 466,
	} {
		assert.Check(t, is.Equal(sysnumX86_64[name], nr), name)
	}
	for name, nr := range map[string]uint32{
		"io_setup": 0, "openat": 56, "read": 63, "newfstatat": 79, "personality": 92, "ptrace": 117, "getpid": 172,
		"socket": 198, "clone": 220, "mmap": 222, "clone3": 435, "futex_wake": 454, "mseal": 462, "removexattrat": 466,
	} {
		assert.Check(t, is.Equal(sysnumAarch64[name], nr), name)
	}
}

// TestSeccompFilterCost bounds what a syscall costs the interpreter, and
// the program's length, which gVisor pays on every new task and exec: the
// search over segments of one answer keeps an unconditional call near 15
// instructions, where a chain of jeq would take up to one per number, and
// the program near 450 instructions (a search over the numbers themselves
// took 1267).
func TestSeccompFilterCost(t *testing.T) {
	for _, arch := range arches {
		t.Run(arch.name, func(t *testing.T) { filterCost(t, arch) })
	}
}

func filterCost(t *testing.T, arch *syscallArch) {
	prog := filterOn(t, arch)
	conditional := map[uint32]bool{}
	for _, r := range seccompRules() {
		for _, n := range r.Names {
			if nr, ok := arch.nums[n]; ok && len(r.Args) > 0 {
				conditional[nr] = true
			}
		}
	}
	var plain []int
	condMax := 0
	for nr := uint32(0); nr < 470; nr++ {
		_, n, err := runBPF(prog, seccompData{nr: nr, arch: arch.audit})
		assert.NilError(t, err)
		if conditional[nr] {
			condMax = max(condMax, n)
		} else {
			plain = append(plain, n)
		}
	}
	slices.Sort(plain)
	_, getpid, _ := runBPF(prog, callOn(arch, "getpid"))
	_, socket, _ := runBPF(prog, callOn(arch, "socket", 2, 1, 0))
	t.Logf("%d instructions; per call of numbers 0..469 without conditions: min %d, median %d, max %d; "+
		"with conditions: max %d; getpid %d, socket(AF_INET) %d",
		len(prog), plain[0], plain[len(plain)/2], plain[len(plain)-1], condMax, getpid, socket)
	assert.Check(t, plain[len(plain)-1] <= 24, "max %d instructions for an unconditional call", plain[len(plain)-1])
	assert.Check(t, condMax <= 60, "max %d instructions for a conditional call", condMax)
	assert.Check(t, len(prog) <= 480, "%d instructions", len(prog))
}

func TestSeccompFilterRefusesWhatItCannotCompile(t *testing.T) {
	allow := func(names []string, args ...seccompArg) seccompSyscall {
		return seccompSyscall{Names: names, Action: actAllow, Args: args}
	}
	for _, c := range []struct {
		name  string
		rules []seccompSyscall
		want  string
	}{
		{"unknown name", []seccompSyscall{allow([]string{"no_such_call"})}, `syscall "no_such_call" has no x86_64 number`},
		{"log action", []seccompSyscall{{Names: []string{"read"}, Action: actLog}}, `action "SCMP_ACT_LOG" not compiled`},
		{"two conditions on one argument", []seccompSyscall{allow([]string{"socket"},
			seccompArg{Index: 0, Value: 1, Op: cmpEq}, seccompArg{Index: 0, Value: 2, Op: cmpEq})}, "two conditions on argument 0"},
		{"unknown comparison", []seccompSyscall{allow([]string{"socket"}, seccompArg{Index: 0, Op: "SCMP_CMP_LT"})}, `comparison "SCMP_CMP_LT" not compiled`},
		{"argument 6", []seccompSyscall{allow([]string{"socket"}, seccompArg{Index: 6, Op: cmpEq})}, "argument 6 out of 0..5"},
		{"unconditional beside conditional", []seccompSyscall{allow([]string{"socket"}),
			{Names: []string{"socket"}, Action: actErrno, ErrnoRet: errno(limits.FilterErrno), Args: []seccompArg{{Index: 0, Value: 38, Op: cmpEq}}}},
			"unconditional rule beside 1 others"},
		{"errno 4096", []seccompSyscall{{Names: []string{"read"}, Action: actErrno, ErrnoRet: errno(4096)}}, "errno 4096 out of 1..4095"},
	} {
		_, err := compileSeccomp(c.rules, archX86_64)
		assert.Check(t, is.ErrorContains(err, c.want), c.name)
	}
}

func TestSeccompFilterIsACopy(t *testing.T) {
	a := mustFilter(t)
	a[0].K = 0
	b := mustFilter(t)
	assert.Check(t, b[0].K == seccompDataArch)
}
