// Package seccomp is the policy's syscall profile: the allowlist as a
// table, each architecture's syscall numbers (generated from x/sys by
// gen_syscalls.go), and the two forms the table takes.
//
// The table is the allowed groups (what Docker's default profile allows a
// process without capabilities, on the native 64-bit ABIs) and the denied
// groups, each with its reason, refused with limits.FilterErrno so a
// refusal by this filter is told apart from the kernel's. Profile renders
// it as Docker's JSON, the bytes docker sends the engine (runc compiles
// them with libseccomp); Filter compiles it to the classic BPF program the
// runner installs itself where the engine ignores the profile (gVisor),
// with the same answers. Like package limits, it does no I/O.
package seccomp
