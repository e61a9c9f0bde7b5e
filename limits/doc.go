// Package limits holds the isolation policy as data: the fixed bounds every
// run gets, the few configurable ones with their ranges, the boundary
// table, and the one size grammar that flags, the audit and the argv
// share; the seccomp allowlist is its own package, limits/seccomp. It does
// no I/O; the argv (package dockerargs), the audit, the runner's hello and
// the documentation are views of these values.
//
// # The bounds
//
// Fixed, never configurable, each a boundary the tool promises and the
// audit checks argvs against: UID and GID 65534; CPUs 1; PIDs 64 (threads
// count); NoFile 64 and Core 0 (soft and hard); TmpBytes, the 32 MiB /tmp,
// the only writable place; and the bounds on what crosses the container's
// edge: MaxRequestBytes (64 KiB encoded), MaxOutputBytes (64 KiB of output
// kept, the rest counted and flagged), MaxResponseBytes (1 MiB), and
// MaxHelloBytes (16 KiB), plus MaxLineBytes for a batch line.
//
// Configurable, in Config, with their ranges: Memory (DefaultMemory 512m,
// from MinMemory 64m to MaxMemory, swap capped to the same value, so none),
// Timeout (DefaultTimeout 10s, from MinTimeout 1s to MaxTimeout) and CPUTime (none by
// default, from MinCPUTime up to the timeout). Config.Resolve fills the
// defaults and checks the ranges; a *FieldError names the field, or the
// flag (FlagError), that is out of range. ParseBytes reads docker's sizes
// (512m, 1gb, 1GiB, 1.5g, 536870912) as long as they are a whole number of
// bytes; CheckImageID admits only an immutable sha256: ID.
//
// # The boundary table
//
// Each boundary is written once, as data: its value, the argv form that
// enforces it, the audit rule that checks an argv for it, and how a
// runtime's hello proves it from inside the container. Render, Audit, the
// host's judgement of the hello and the README's table of boundaries all
// read it, so a new boundary, or a new runtime's column, is one edit.
//
// The syscall filter's own table is package limits/seccomp's; the boundary
// table's proof of it is here: FilterErrno, the errno by which a refusal
// by the filter is told apart from the kernel's, and SeccompProbes, the
// denied calls the runner makes harmlessly to prove, in its hello, that
// the filter is the one in force.
package limits
