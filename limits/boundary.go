package limits

import (
	"fmt"
	"strings"
)

// Runtime names an OCI runtime. Each is a column of the boundary table:
// the argv and the audit are the same under every runtime, but each shows
// the boundary to the runner inside its own way.
type Runtime string

// The runtimes the table knows. An engine's default runtime is judged as
// runc.
const (
	// Runc is the reference runtime: the host's kernel, behind namespaces,
	// cgroups, capabilities and the seccomp filter.
	Runc Runtime = "runc"
	// Runsc is gVisor: the program's syscalls meet gVisor's own kernel (the
	// sentry), itself behind a host seccomp filter, so the program sees
	// nothing of the host kernel's state.
	Runsc Runtime = "runsc"
)

// Runtimes are the table's columns, in the order the README shows them.
var Runtimes = []Runtime{Runc, Runsc}

// RuntimeOf returns the column that proves a run under the runtime
// --runtime names: empty (the engine's default) and runc are runc; runsc
// and names that begin "runsc-" (gVisor's own examples register runsc-kvm,
// runsc-debug) are gVisor. Any other runtime is not one the table knows.
func RuntimeOf(name string) (Runtime, error) {
	switch {
	case name == "" || name == string(Runc):
		return Runc, nil
	case name == string(Runsc) || strings.HasPrefix(name, string(Runsc)+"-"):
		return Runsc, nil
	}
	return "", fmt.Errorf("--runtime: %q is not a runtime the boundary table proves (runc, or gVisor as runsc or runsc-NAME)", name)
}

// Boundary is one row of the boundary table: one boundary the policy
// promises, and every view of it. Render emits Argv, Audit judges a
// captured argv by the rule dockerargs keeps under ID, and the runner's
// hello proves it by the Proofs of the run's runtime.
type Boundary struct {
	// ID is stable, for machines: the audit finding's id.
	ID string
	// Name is the boundary as people read it: the audit finding's boundary.
	Name string
	// Value is the policy's value, in words.
	Value string
	// Argv is what Render emits for it, flags and values; ArgMemory and
	// ArgSeccomp stand for the run's own values. Nil: no flag sets it (the
	// boundary is that a flag is never rendered).
	Argv []string
	// Claims are the docker run flags (canonical long names) the audit
	// judges under this boundary; any flag no row claims must be harmless.
	Claims []string
	// Audit says how Audit judges a captured argv for it; empty means the
	// argv cannot show it, and Audit has no finding for it.
	Audit string
	// Under holds the row's argv and audit rule under a runtime that needs
	// other flags than Argv and Audit: gVisor's threads share the host's
	// --pids-limit with the program's.
	Under map[Runtime]Flags
	// Hello holds, per runtime, the checks of the runner's hello that
	// prove it, as doctor prints them.
	Hello map[Runtime][]Proof
}

// Flags are a row's argv and audit rule under one runtime.
type Flags struct {
	Argv  []string
	Audit string
}

// ArgvUnder returns the row's argv under runtime r.
func (b Boundary) ArgvUnder(r Runtime) []string {
	if f, ok := b.Under[r]; ok {
		return f.Argv
	}
	return b.Argv
}

// AuditUnder returns how Audit judges the row in an argv for runtime r.
func (b Boundary) AuditUnder(r Runtime) string {
	if f, ok := b.Under[r]; ok {
		return f.Audit
	}
	return b.Audit
}

// Proof is one check of the runner's hello (hello.Selfcheck). The code
// that reads the hello lives with the host (isolation/internal/attest),
// one judge per Judge; its expected values are this package's.
type Proof struct {
	// Check is the check's name, as doctor and a refusal print it.
	Check string
	// Proves is what the check proves, in words.
	Proves string
	// Judge names the code that reads the hello for it.
	Judge string
	// Shows is what the hello shows when the boundary holds.
	Shows string
}

// Placeholders in Boundary.Argv for the values of one run.
const (
	// ArgMemory is the run's memory limit (--memory and --memory-swap).
	ArgMemory = "M"
	// ArgSeccomp is the --security-opt value naming the run's profile file.
	ArgSeccomp = "seccomp=FILE"
)

// Policy values the argv, the audit, the hello and its test doubles share.
const (
	// CapEffNone is /proc/self/status's CapEff with no capability.
	CapEffNone = "0000000000000000"
	// NoNewPrivsOn is /proc/self/status's NoNewPrivs when no_new_privs is set.
	NoNewPrivsOn = 1
	// SeccompModeFilter is /proc/self/status's Seccomp under a filter.
	SeccompModeFilter = 2
	// CFSPeriodMicros is the CFS period docker sets with --cpus, in µs.
	CFSPeriodMicros = 100000
	// TmpMode is /tmp's mode: every user may create files, none may remove
	// another's.
	TmpMode = "1777"
	// None is --network, --ipc and --log-driver's value: none at all.
	None = "none"
	// PullNever is --pull's value: never pull, use the reviewed image.
	PullNever = "never"
)

// Policy values built from the bounds. They are read, never written.
var (
	// User is the numeric user and group; numeric so no passwd file in the
	// image can remap it.
	User = fmt.Sprintf("%d:%d", UID, GID)
	// CPUMax is one CPU of quota as cgroup v2's cpu.max spells it
	// (quota period, µs).
	CPUMax = fmt.Sprintf("%d %d", CPUs*CFSPeriodMicros, CFSPeriodMicros)
	// TmpFlags are the mount options /tmp must carry: no exec, no setuid,
	// no devices.
	TmpFlags = []string{"noexec", "nosuid", "nodev"}
	// TmpfsOptions mounts /tmp as the only writable place: bounded, no
	// exec, no setuid, no devices.
	TmpfsOptions = "rw,noexec,nosuid,nodev,size=" + Bytes(TmpBytes).String() + ",mode=" + TmpMode
	// Tmpfs is the --tmpfs value.
	Tmpfs = "/tmp:" + TmpfsOptions
	// UlimitNoFile and UlimitCore are the --ulimit values; UlimitNProc is
	// gVisor's, which counts the sandbox's tasks (under runc the limit
	// counts every process of the host's uid 65534, every container's).
	UlimitNoFile = ulimit("nofile", NoFile)
	UlimitCore   = ulimit("core", Core)
	UlimitNProc  = ulimit("nproc", PIDs)
	// Interfaces are the only network interfaces the program sees.
	Interfaces = []string{"lo"}
	// EngineEnv is the environment the engine itself gives every
	// container; any other key came from somewhere else (a -e, a proxy).
	EngineEnv = []string{"HOME", "HOSTNAME", "PATH"}
	// ThreadVars are the variables by which numeric libraries size their
	// thread pools (OpenBLAS, OpenMP, MKL, numexpr, Accelerate, BLIS,
	// GotoBLAS), and Go's runtime its scheduler (GOMAXPROCS: the threads
	// that run goroutines at once, and the garbage collector's workers).
	// Unset, each starts a thread per CPU it sees, and a container sees
	// all of the host's (--cpus is a quota, not an affinity): on a
	// 96-core host a matrix product would start 95 threads against the
	// PID cap, and a Go program's collector as many. The runner sets each
	// to Threads for an interpreter, a compiled program and its compiler;
	// a program that asks for more itself is the program's business, and
	// the PID cap its bound.
	ThreadVars = []string{"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS",
		"VECLIB_MAXIMUM_THREADS", "BLIS_NUM_THREADS", "GOTO_NUM_THREADS", "GOMAXPROCS"}
)

// Threads is the size of a numeric library's thread pool: the CPU quota.
const Threads = CPUs

// Pair spells a soft and hard limit the way --ulimit and the messages do.
func Pair(soft, hard int64) string { return fmt.Sprintf("%d:%d", soft, hard) }

func ulimit(name string, n int64) string { return name + "=" + Pair(n, n) }

// Lookup returns the row with the given ID.
func Lookup(id string) (Boundary, bool) {
	for _, b := range Boundaries {
		if b.ID == id {
			return b, true
		}
	}
	return Boundary{}, false
}

// HelloProofs returns the checks of the hello under runtime r, in the
// table's order.
func HelloProofs(r Runtime) []Proof {
	var out []Proof
	for _, b := range Boundaries {
		out = append(out, b.Hello[r]...)
	}
	return out
}
