package seccomp

import "github.com/synapse-lang/synapse-isolation/limits"

// Libseccomp's spellings of the comparisons the conditional rules use.
const (
	cmpNe = "SCMP_CMP_NE"
	cmpGe = "SCMP_CMP_GE"
)

// Address families (socket(2)'s first argument) and the one netlink
// protocol allowed.
const (
	afUnix       = 1
	afInet       = 2
	afInet6      = 10
	afNetlink    = 16
	netlinkRoute = 0
)

// socketRules allow socket and socketpair for AF_UNIX, AF_INET and
// AF_INET6, and AF_NETLINK for its routing protocol only (interface and
// address lists: the runner's hello and glibc's address lookups read them
// from the container's own network namespace). Every other family gets the
// filter's errno, so the hello's probes see this filter refuse AF_ALG and
// AF_VSOCK. The conditions are disjoint and cover every value, so no rule
// depends on how libseccomp orders an allow and an errno of one syscall.
// A value with bits above the int the kernel reads is at least 17 and
// refused.
func socketRules() []seccompSyscall {
	names := []string{"socket", "socketpair"}
	allow := func(why string, args ...seccompArg) seccompSyscall {
		return seccompSyscall{Names: names, Action: actAllow, Comment: why, Args: args}
	}
	why := "other address families: AF_VSOCK reaches a VM host's own services, AF_ALG is the kernel crypto API " +
		"(the way in of CVE-2026-31431), AF_PACKET, AF_BLUETOOTH and the rest serve no program here"
	refuse := func(args ...seccompArg) seccompSyscall {
		r := seccompSyscall{Names: names, Action: actErrno, ErrnoRet: errno(limits.FilterErrno), Args: args, Comment: why}
		why = "other address families, as above"
		return r
	}
	domain := func(op string, v uint64) seccompArg { return seccompArg{Index: 0, Value: v, Op: op} }
	masked := func(mask, v uint64) seccompArg {
		return seccompArg{Index: 0, Value: mask, ValueTwo: v, Op: cmpMaskedEq}
	}
	return []seccompSyscall{
		allow("local sockets", domain(cmpEq, afUnix)),
		allow("IPv4 sockets: the network namespace has only lo", domain(cmpEq, afInet)),
		allow("IPv6 sockets: the network namespace has only lo", domain(cmpEq, afInet6)),
		allow("routing netlink: the container's own interfaces and addresses", domain(cmpEq, afNetlink), seccompArg{Index: 2, Value: netlinkRoute, Op: cmpEq}),
		refuse(domain(cmpEq, 0)),
		refuse(domain(cmpEq, 3)),
		refuse(masked(^uint64(3), 4)), // 4 to 7
		refuse(masked(^uint64(1), 8)), // 8 and 9
		refuse(domain(cmpEq, 11)),
		refuse(masked(^uint64(3), 12)), // 12 to 15
		refuse(domain(cmpEq, afNetlink), seccompArg{Index: 2, Value: netlinkRoute, Op: cmpNe}),
		refuse(domain(cmpGe, 17)),
	}
}

// signalRules allow pidfd_send_signal without a siginfo only. With one, as
// with rt_sigqueueinfo and rt_tgsigqueueinfo (refused by name), the sender
// chooses si_code, and a fault signal (SIGSEGV, SIGBUS) with a code other
// than a process's own send looks to its receiver like its own fault: a Go
// program, the runner included, dies of it. kill and tgkill remain.
func signalRules() []seccompSyscall {
	return []seccompSyscall{
		{Names: []string{"pidfd_send_signal"}, Action: actAllow, Comment: "signals to a process by pidfd, without a forged siginfo",
			Args: []seccompArg{{Index: 2, Value: 0, Op: cmpEq}}},
		{Names: []string{"pidfd_send_signal"}, Action: actErrno, ErrnoRet: errno(limits.FilterErrno),
			Comment: "a siginfo of the sender's choosing forges a fault signal",
			Args:    []seccompArg{{Index: 2, Value: 0, Op: cmpNe}}},
	}
}
