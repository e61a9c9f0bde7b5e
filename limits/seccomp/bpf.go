package seccomp

//go:generate go run gen_syscalls.go

import (
	"fmt"
	"slices"
	"sync"
)

// Values of seccomp_data and of a filter's return (linux/seccomp.h,
// linux/audit.h), checked against x/sys by a Linux test.
const (
	x32SyscallBit = 0x40000000

	seccompRetKillThread = 0x00000000
	seccompRetErrno      = 0x00050000
	seccompRetAllow      = 0x7fff0000

	// Offsets in struct seccomp_data: nr, arch, then the six arguments,
	// each 64 bits in the machine's order (little-endian on x86_64 and
	// on aarch64 as Linux runs it: the low word first).
	seccompDataNr   = 0
	seccompDataArch = 4
	seccompDataArgs = 16
)

// seccompRetBadArch answers a call through another ABI: int 0x80 (i386)
// and x32 (nr with x32SyscallBit) on x86_64, AArch32 on aarch64. Runc leaves libseccomp's bad-architecture
// action at its default, SCMP_ACT_KILL, which kills the calling thread, and
// libseccomp sends x32 calls there too: measured with runc 1.1.5 and
// libseccomp 2.5.4, both calls kill the thread. The compiled filter does
// the same, so runc and gVisor refuse them alike.
const seccompRetBadArch = seccompRetKillThread

// Filter returns the policy's syscall filter (the table of Profile)
// compiled to a classic BPF program for the architecture it runs on
// (x86_64 or aarch64; any other is an error), to install with
// seccomp(SECCOMP_SET_MODE_FILTER). Under runc, libseccomp compiles the
// profile; under gVisor the engine ignores the profile, so the runner
// installs this program itself, and both refuse the same calls with the
// same errnos. The program is compiled once per process; the caller gets
// its own copy.
func Filter() ([]SockFilter, error) {
	p, err := compiledFilter()
	return slices.Clone(p), err
}

var compiledFilter = sync.OnceValues(func() ([]SockFilter, error) {
	arch, err := nativeArch()
	if err != nil {
		return nil, err
	}
	return compileSeccomp(seccompRules(), arch)
})

// seccompDefault is the profile's default action, ERRNO(EPERM).
const seccompDefault = seccompRetErrno | errnoEPERM

// bpfRule is one rule of one syscall: its return value when all its
// conditions hold.
type bpfRule struct {
	args []seccompArg
	ret  uint32
}

// compileSeccomp compiles rules to a program for arch with runc's
// semantics for this profile:
//
//   - a call from another architecture or ABI (x32, i386, AArch32):
//     seccompRetBadArch;
//   - a number above the largest the table names: ERRNO(ENOSYS), as runc's
//     stub (libcontainer/seccomp/patchbpf) answers, so a program falls back
//     from a syscall newer than the policy as from one the kernel lacks;
//   - a syscall the table names: its first rule whose conditions all hold,
//     each comparing the whole 64-bit argument as libseccomp does; the
//     table's rules of one syscall are disjoint, so the order libseccomp
//     would pick among them does not matter (a test checks it);
//   - anything else, or a syscall whose conditional rules all miss: the
//     default, ERRNO(EPERM).
//
// Rules whose action is the default are skipped, as runc skips them.
//
// Dispatch is a binary search over segments of the numbers 0 to the
// largest: runs of consecutive numbers with one unconditional answer (the
// default among them) are one segment each, and each conditional syscall
// is its own. gVisor's sentry, besides running the program for a syscall
// it cannot answer from its cache, runs it for every number from 0 to its
// largest on every new task and exec, to fill that cache, allocating a
// byte per instruction each time: a short program is what makes a thread
// or an exec cheap there (seen here: a search over the numbers themselves,
// 1267 instructions, made 8 new threads cost 15 ms instead of 3).
func compileSeccomp(rules []seccompSyscall, arch *syscallArch) ([]SockFilter, error) {
	bySys := map[uint32][]bpfRule{}
	for _, r := range rules {
		ret, err := bpfReturn(r)
		if err != nil {
			return nil, err
		}
		if err := checkArgs(r); err != nil {
			return nil, err
		}
		if ret == seccompDefault {
			continue
		}
		for _, name := range r.Names {
			nr, ok := arch.nums[name]
			if !ok {
				if _, skip := arch.absent[name]; skip {
					continue
				}
				return nil, fmt.Errorf("seccomp filter: syscall %q has no %s number", name, arch.name)
			}
			bySys[nr] = append(bySys[nr], bpfRule{args: r.Args, ret: ret})
		}
	}
	largest := uint32(0)
	for nr, rs := range bySys {
		if err := checkUnconditional(nr, rs); err != nil {
			return nil, err
		}
		largest = max(largest, nr)
	}
	if len(bySys) == 0 {
		return nil, fmt.Errorf("seccomp filter: no rules")
	}
	c := &bpfCompiler{bySys: bySys, blocks: map[uint32]label{}}
	a := &c.asm
	// Each check returns at once, so no jump of the prologue spans the
	// tree.
	native, ours, known := a.newLabel(), a.newLabel(), a.newLabel()
	a.stmt(bpfLdWAbs, seccompDataArch)
	a.cond(bpfJeqK, arch.audit, native, next)
	a.stmt(bpfRetK, seccompRetBadArch)
	a.bind(native)
	a.stmt(bpfLdWAbs, seccompDataNr)
	if arch.x32 {
		a.cond(bpfJsetK, x32SyscallBit, next, ours)
		a.stmt(bpfRetK, seccompRetBadArch)
	}
	a.bind(ours)
	a.cond(bpfJgtK, largest, next, known)
	a.stmt(bpfRetK, seccompRetErrno|errnoENOSYS)
	a.bind(known)
	c.tree(c.segments(largest))
	c.emitBlocks()
	return a.finish()
}

// bpfReturn is a rule's return value: SECCOMP_RET_ALLOW or
// SECCOMP_RET_ERRNO with its errno (EPERM when it names none, as runc).
func bpfReturn(r seccompSyscall) (uint32, error) {
	switch r.Action {
	case actAllow:
		return seccompRetAllow, nil
	case actErrno:
		n := uint(errnoEPERM)
		if r.ErrnoRet != nil {
			n = *r.ErrnoRet
		}
		if n == 0 || n > 4095 {
			return 0, fmt.Errorf("seccomp filter: %v: errno %d out of 1..4095", r.Names, n)
		}
		return seccompRetErrno | uint32(n), nil
	}
	return 0, fmt.Errorf("seccomp filter: %v: action %q not compiled", r.Names, r.Action)
}

// checkArgs admits the comparisons the compiler emits, on distinct
// arguments: runc splits conditions on one argument into separate rules
// (any of them matching), which the table does not use.
func checkArgs(r seccompSyscall) error {
	var seen [6]bool
	for _, c := range r.Args {
		if c.Index >= 6 {
			return fmt.Errorf("seccomp filter: %v: argument %d out of 0..5", r.Names, c.Index)
		}
		if seen[c.Index] {
			return fmt.Errorf("seccomp filter: %v: two conditions on argument %d", r.Names, c.Index)
		}
		seen[c.Index] = true
		switch c.Op {
		case cmpEq, cmpNe, cmpGe, cmpMaskedEq:
		default:
			return fmt.Errorf("seccomp filter: %v: comparison %q not compiled", r.Names, c.Op)
		}
	}
	return nil
}

// checkUnconditional refuses a syscall with an unconditional rule beside
// others: libseccomp would let the unconditional one win whatever the
// order, and the table never means that.
func checkUnconditional(nr uint32, rs []bpfRule) error {
	if len(rs) < 2 {
		return nil
	}
	for _, r := range rs {
		if len(r.args) == 0 {
			return fmt.Errorf("seccomp filter: syscall %d has an unconditional rule beside %d others", nr, len(rs)-1)
		}
	}
	return nil
}

// bpfCompiler emits the dispatch tree, then each conditional syscall's
// block, reached by ja from its leaf.
type bpfCompiler struct {
	asm    assembler
	bySys  map[uint32][]bpfRule
	blocks map[uint32]label // conditional syscalls, in the order leaves met them
	order  []uint32
}

// segment is a run of syscall numbers lo..hi with one answer: ret, or,
// for a conditional syscall (lo == hi, cond), its block.
type segment struct {
	lo, hi uint32
	ret    uint32
	cond   bool
}

// segments cuts 0..largest into runs of one answer.
func (c *bpfCompiler) segments(largest uint32) []segment {
	var segs []segment
	for nr := uint32(0); nr <= largest; nr++ {
		s := segment{lo: nr, hi: nr, ret: seccompDefault}
		if rs, ok := c.bySys[nr]; ok {
			if len(rs) == 1 && len(rs[0].args) == 0 {
				s.ret = rs[0].ret
			} else {
				s.cond = true
			}
		}
		if n := len(segs); n > 0 && !s.cond && !segs[n-1].cond && segs[n-1].ret == s.ret {
			segs[n-1].hi = nr
			continue
		}
		segs = append(segs, s)
	}
	return segs
}

// tree dispatches on the number in A among segs (in order, covering the
// numbers the prologue let through): a jgt halves them until one is
// left, whose answer is returned or whose block is jumped to. The right
// half is reached by ja, so no conditional jump spans a subtree.
func (c *bpfCompiler) tree(segs []segment) {
	a := &c.asm
	if len(segs) == 1 {
		s := segs[0]
		if !s.cond {
			a.stmt(bpfRetK, s.ret)
			return
		}
		b := a.newLabel()
		c.blocks[s.lo] = b
		c.order = append(c.order, s.lo)
		a.ja(b)
		return
	}
	mid := len(segs) / 2
	left, right := a.newLabel(), a.newLabel()
	a.cond(bpfJgtK, segs[mid-1].hi, next, left)
	a.ja(right)
	a.bind(left)
	c.tree(segs[:mid])
	a.bind(right)
	c.tree(segs[mid:])
}

// emitBlocks emits each conditional syscall's rules in table order: a rule
// whose condition fails jumps to the next rule; after the last, the
// default.
func (c *bpfCompiler) emitBlocks() {
	a := &c.asm
	for _, nr := range c.order {
		a.bind(c.blocks[nr])
		for _, r := range c.bySys[nr] {
			fail := a.newLabel()
			for _, arg := range r.args {
				c.condition(arg, fail)
			}
			a.stmt(bpfRetK, r.ret)
			a.bind(fail)
		}
		a.stmt(bpfRetK, seccompDefault)
	}
}

// condition falls through when arg's condition holds and jumps to fail
// when not. It compares the whole 64-bit argument, high word first, as
// libseccomp does on a 64-bit architecture: an int argument with bits
// above 32 set is not the int the kernel will read, and the profile's
// rules, like runc's, see the difference.
func (c *bpfCompiler) condition(arg seccompArg, fail label) {
	a := &c.asm
	lo := uint32(seccompDataArgs + 8*arg.Index)
	hi := lo + 4
	v, vHi := uint32(arg.Value), uint32(arg.Value>>32)
	switch arg.Op {
	case cmpEq:
		a.stmt(bpfLdWAbs, hi)
		a.cond(bpfJeqK, vHi, next, fail)
		a.stmt(bpfLdWAbs, lo)
		a.cond(bpfJeqK, v, next, fail)
	case cmpNe:
		pass := a.newLabel()
		a.stmt(bpfLdWAbs, hi)
		a.cond(bpfJeqK, vHi, next, pass)
		a.stmt(bpfLdWAbs, lo)
		a.cond(bpfJeqK, v, fail, next)
		a.bind(pass)
	case cmpGe:
		pass := a.newLabel()
		a.stmt(bpfLdWAbs, hi)
		a.cond(bpfJgtK, vHi, pass, next)
		a.cond(bpfJeqK, vHi, next, fail)
		a.stmt(bpfLdWAbs, lo)
		a.cond(bpfJgeK, v, next, fail)
		a.bind(pass)
	case cmpMaskedEq:
		// Docker's JSON puts the mask in value and the datum in valueTwo.
		d, dHi := uint32(arg.ValueTwo), uint32(arg.ValueTwo>>32)
		a.stmt(bpfLdWAbs, hi)
		a.stmt(bpfAndK, vHi)
		a.cond(bpfJeqK, dHi, next, fail)
		a.stmt(bpfLdWAbs, lo)
		a.stmt(bpfAndK, v)
		a.cond(bpfJeqK, d, next, fail)
	}
}
