package seccomp

import "fmt"

// SockFilter is one classic BPF instruction, laid out as Linux's struct
// sock_filter (and golang.org/x/sys/unix.SockFilter, which the runner
// copies it into). The package keeps its own type so it builds on every
// host, not only on Linux.
type SockFilter struct {
	Code uint16
	Jt   uint8
	Jf   uint8
	K    uint32
}

// Classic BPF opcodes the compiler emits (linux/bpf_common.h), spelled
// here because x/sys defines them for Linux builds only; a Linux test
// checks them against x/sys.
const (
	bpfLdWAbs = 0x00 | 0x00 | 0x20 // BPF_LD | BPF_W | BPF_ABS
	bpfAndK   = 0x04 | 0x50 | 0x00 // BPF_ALU | BPF_AND | BPF_K
	bpfJa     = 0x05 | 0x00        // BPF_JMP | BPF_JA
	bpfJeqK   = 0x05 | 0x10 | 0x00 // BPF_JMP | BPF_JEQ | BPF_K
	bpfJgtK   = 0x05 | 0x20 | 0x00 // BPF_JMP | BPF_JGT | BPF_K
	bpfJgeK   = 0x05 | 0x30 | 0x00 // BPF_JMP | BPF_JGE | BPF_K
	bpfJsetK  = 0x05 | 0x40 | 0x00 // BPF_JMP | BPF_JSET | BPF_K
	bpfRetK   = 0x06 | 0x00        // BPF_RET | BPF_K

	// bpfMaxInsns is the kernel's limit on a program's length.
	bpfMaxInsns = 4096
)

// label is a position in the program, bound once, jumped to from before.
type label int

// next is the label of the instruction after a conditional jump: offset 0.
const next label = -1

// jump records a conditional jump's or a ja's targets until every label
// is bound.
type jump struct {
	at     int
	jt, jf label // conditional jumps
	ja     label // BPF_JA: -1 unless this is one
}

// assembler lays out a program with symbolic forward jumps. Conditional
// jumps reach 255 instructions at most (their offsets are 8-bit); only ja
// reaches further, so the compiler uses ja wherever a target may be far
// and finish fails loudly rather than truncating an offset.
type assembler struct {
	prog   []SockFilter
	labels []int // position of each label, -1 until bound
	jumps  []jump
}

func (a *assembler) newLabel() label {
	a.labels = append(a.labels, -1)
	return label(len(a.labels) - 1)
}

func (a *assembler) bind(l label) { a.labels[l] = len(a.prog) }

func (a *assembler) stmt(code uint16, k uint32) {
	a.prog = append(a.prog, SockFilter{Code: code, K: k})
}

func (a *assembler) cond(code uint16, k uint32, jt, jf label) {
	a.jumps = append(a.jumps, jump{at: len(a.prog), jt: jt, jf: jf, ja: -1})
	a.stmt(code, k)
}

func (a *assembler) ja(l label) {
	a.jumps = append(a.jumps, jump{at: len(a.prog), ja: l})
	a.stmt(bpfJa, 0)
}

// offset is how far an instruction at `at` jumps to reach l: the count of
// instructions skipped.
func (a *assembler) offset(at int, l label) (int, error) {
	if l == next {
		return 0, nil
	}
	to := a.labels[l]
	if to < 0 {
		return 0, fmt.Errorf("seccomp filter: label %d never bound", l)
	}
	if to <= at {
		return 0, fmt.Errorf("seccomp filter: backward jump at %d", at)
	}
	return to - at - 1, nil
}

func (a *assembler) finish() ([]SockFilter, error) {
	for _, j := range a.jumps {
		if j.ja >= 0 {
			off, err := a.offset(j.at, j.ja)
			if err != nil {
				return nil, err
			}
			a.prog[j.at].K = uint32(off)
			continue
		}
		for _, t := range []struct {
			l   label
			dst *uint8
		}{{j.jt, &a.prog[j.at].Jt}, {j.jf, &a.prog[j.at].Jf}} {
			off, err := a.offset(j.at, t.l)
			if err != nil {
				return nil, err
			}
			if off > 255 {
				return nil, fmt.Errorf("seccomp filter: conditional jump at %d spans %d instructions, over 255", j.at, off)
			}
			*t.dst = uint8(off)
		}
	}
	if len(a.prog) > bpfMaxInsns {
		return nil, fmt.Errorf("seccomp filter: %d instructions, over the kernel's %d", len(a.prog), bpfMaxInsns)
	}
	return a.prog, nil
}
