package seccomp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// The syscall filter is an allowlist: a syscall the table does not name is
// refused. Docker's JSON names actions and comparisons by libseccomp's
// spellings; the engine (runc) compiles the profile into a BPF program.
const (
	actAllow = "SCMP_ACT_ALLOW"
	actErrno = "SCMP_ACT_ERRNO"
	actLog   = "SCMP_ACT_LOG"

	cmpEq       = "SCMP_CMP_EQ"
	cmpMaskedEq = "SCMP_CMP_MASKED_EQ"
)

// errnoEPERM answers every other syscall outside the table. Engines before
// Docker 23 ignore defaultErrnoRet and answer EPERM anyway; the profile
// says so itself rather than depend on it.
const errnoEPERM = 1

// errnoENOSYS answers clone3: glibc then falls back to clone, whose flags
// the filter can read (clone3's are behind a pointer). With EPERM, every
// new thread would fail.
const errnoENOSYS = 38

// Namespace flags of clone(2): CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS,
// CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID and CLONE_NEWNET. (CLONE_NEWTIME
// shares its bit with clone's exit-signal byte and only clone3 and unshare
// take it; the filter refuses both.)
const cloneNamespaces = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000

// Linux personas the filter allows: PER_LINUX itself and the query
// 0xffffffff, which changes nothing. PER_LINUX32 and the rest change how
// the kernel treats the process and serve no program here.
const (
	perLinux   = 0x0000
	perLinux32 = 0x0008
	perQuery   = 0xffffffff
)

// seccompArg is one condition on a syscall argument; all of a rule's
// conditions must hold.
type seccompArg struct {
	Index    uint   `json:"index"`
	Value    uint64 `json:"value"`
	ValueTwo uint64 `json:"valueTwo"`
	Op       string `json:"op"`
}

// seccompSyscall is one rule of Docker's profile JSON.
type seccompSyscall struct {
	Names    []string     `json:"names"`
	Action   string       `json:"action"`
	Args     []seccompArg `json:"args,omitempty"`
	ErrnoRet *uint        `json:"errnoRet,omitempty"`
	Comment  string       `json:"comment,omitempty"`
}

// seccompProfile is Docker's seccomp profile JSON.
type seccompProfile struct {
	DefaultAction   string           `json:"defaultAction"`
	DefaultErrnoRet *uint            `json:"defaultErrnoRet,omitempty"`
	Architectures   []string         `json:"architectures"`
	Syscalls        []seccompSyscall `json:"syscalls"`
}

// architectures lists the native 64-bit ABIs only. A syscall made through
// another ABI of the same machine (x86's int 0x80, x32) matches no
// architecture and is refused whole: the 32-bit compat surface is closed.
var architectures = []string{"SCMP_ARCH_X86_64", "SCMP_ARCH_AARCH64"}

func errno(n uint) *uint { return &n }

// seccompRules returns the table as rules: what is allowed, on which
// arguments, and what is refused with which errno, each with its reason.
// The order is the table's; the renderer sorts nothing.
func seccompRules() []seccompSyscall {
	var rules []seccompSyscall
	for _, a := range allowed {
		rules = append(rules, seccompSyscall{Names: a.names, Action: actAllow, Comment: a.why})
	}
	rules = append(rules,
		seccompSyscall{
			Names: []string{"clone"}, Action: actAllow, Comment: "threads and processes, never in new namespaces",
			Args: []seccompArg{{Index: 0, Value: cloneNamespaces, ValueTwo: 0, Op: cmpMaskedEq}},
		},
		seccompSyscall{
			Names: []string{"personality"}, Action: actAllow, Comment: "the Linux persona only",
			Args: []seccompArg{{Index: 0, Value: perLinux, Op: cmpEq}},
		},
		seccompSyscall{
			Names: []string{"personality"}, Action: actAllow, Comment: "the persona query, which changes nothing",
			Args: []seccompArg{{Index: 0, Value: perQuery, Op: cmpEq}},
		},
		seccompSyscall{
			Names: []string{"personality"}, Action: actErrno, ErrnoRet: errno(limits.FilterErrno),
			Comment: "PER_LINUX32, which Docker's own profile allows; the hello probes it",
			Args:    []seccompArg{{Index: 0, Value: perLinux32, Op: cmpEq}},
		},
		seccompSyscall{
			Names: []string{"clone3"}, Action: actErrno, ErrnoRet: errno(errnoENOSYS),
			Comment: "its flags are behind a pointer the filter cannot read; ENOSYS makes glibc use clone",
		},
	)
	rules = append(rules, socketRules()...)
	rules = append(rules, signalRules()...)
	for _, d := range denied {
		rules = append(rules, seccompSyscall{Names: d.names, Action: actErrno, ErrnoRet: errno(limits.FilterErrno), Comment: d.why})
	}
	return rules
}

// Profile returns the policy's seccomp profile as Docker's JSON.
// The bytes are stable: the audit compares a captured profile with them
// and the file run writes is named by their SHA-256.
func Profile() []byte { return bytes.Clone(profile()) }

// profile and profileSHA256 render once per process: every run checks its
// profile file against them.
var (
	profile       = sync.OnceValue(func() []byte { return renderProfile(actErrno, errno(errnoEPERM)) })
	profileSHA256 = sync.OnceValue(func() string {
		sum := sha256.Sum256(profile())
		return hex.EncodeToString(sum[:])
	})
)

// LogProfile returns the same rules with one difference: a syscall
// outside the table is allowed and logged by the kernel (audit type 1326).
// It measures what a workload needs beyond the table; it is never a
// sandbox's profile.
func LogProfile() []byte {
	return renderProfile(actLog, nil)
}

func renderProfile(def string, defErrno *uint) []byte {
	p := seccompProfile{DefaultAction: def, DefaultErrnoRet: defErrno, Architectures: architectures, Syscalls: seccompRules()}
	// One line, as every --format json of the CLI prints: `seccomp
	// --format table` is the form for reading.
	b, err := json.Marshal(p)
	if err != nil {
		panic(err) // plain structs of strings and numbers always marshal
	}
	return append(b, '\n')
}

// SHA256 is the hex SHA-256 of Profile.
func SHA256() string { return profileSHA256() }

// FileName is the profile file's name: content-addressed, so a changed
// policy never reuses an old file and an argv names the exact profile it
// ran under.
func FileName() string { return "seccomp-" + SHA256() + ".json" }

// Summary says in one line what the profile allows and refuses, for the
// audit: each rule's reason is in the profile's comments.
func Summary() string {
	first := make([]string, len(denied))
	for i, d := range denied {
		first[i] = d.names[0]
	}
	return fmt.Sprintf("%d syscalls allowed; socket and socketpair only for AF_UNIX, AF_INET, AF_INET6 and routing netlink "+
		"(AF_VSOCK reaches a VM host, AF_ALG is the kernel crypto API); refused by name with errno %d: %s and the rest of their groups, "+
		"and PER_LINUX32 and forged siginfo; each reason: synapse-isolation seccomp --format table",
		len(Allowed()), limits.FilterErrno, strings.Join(first, ", "))
}

// Allowed returns the names of the syscalls the profile allows, with or
// without argument conditions, sorted.
func Allowed() []string {
	seen := map[string]bool{}
	for _, r := range seccompRules() {
		if r.Action == actAllow {
			for _, n := range r.Names {
				seen[n] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
