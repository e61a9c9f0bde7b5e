package main

import "github.com/synapse-lang/synapse-isolation/isolation/protocol/hello"

// ensureFilter puts the policy's seccomp filter in force, once, at the
// start of the runner's main process, and says who installed the filter
// in force (hello.Selfcheck.SeccompBy). An engine that applied the
// OCI profile (runc) left one: "engine". gVisor ignores the profile, so
// there is none, and the runner installs the policy's own on all its
// threads (installFilter): "runner". If that fails, or the status cannot
// be read, "": the hello then fails the host's judgement, which is where
// a missing boundary is refused; the runner does not exit, so the host
// learns why. Its re-executed children (the Starlark child, the probe,
// the exec trampoline) inherit the filter and never call this.
func ensureFilter(inForce func() (bool, error), install func() error) string {
	on, err := inForce()
	switch {
	case err != nil:
		return ""
	case on:
		return hello.SeccompByEngine
	case install() != nil:
		return ""
	}
	return hello.SeccompByRunner
}
