package main

import (
	"errors"
	"strconv"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol/hello"
)

// TestEnsureFilter: a filter the engine left is the engine's and none is
// added; with none, the runner installs the policy's and says so; when it
// cannot tell or cannot install, it says no one did, which the host's
// judgement refuses.
func TestEnsureFilter(t *testing.T) {
	broken := errors.New("broken")
	for _, tc := range []struct {
		name       string
		inForce    bool
		inForceErr error
		installErr error
		want       string
		installs   int
	}{
		{"engine", true, nil, nil, hello.SeccompByEngine, 0},
		{"runner", false, nil, nil, hello.SeccompByRunner, 1},
		{"install fails", false, nil, broken, "", 1},
		{"status unreadable", false, broken, nil, "", 0},
	} {
		installs := 0
		got := ensureFilter(func() (bool, error) { return tc.inForce, tc.inForceErr },
			func() error { installs++; return tc.installErr })
		assert.Check(t, is.Equal(got, tc.want), tc.name)
		assert.Check(t, is.Equal(installs, tc.installs), tc.name)
	}
}

// TestRunnerInstallsTheFilterOnce: started with no filter (as gVisor
// starts it), the runner installs the policy's before anything else and
// says so; the program it starts runs under that one filter, inherited,
// not a second of its own (Seccomp_filters counts them); with a filter in
// force (as runc starts it), it adds none.
func TestRunnerInstallsTheFilterOnce(t *testing.T) {
	t.Parallel()
	status, err := readKeyed("/proc/self/status", ":")
	assert.NilError(t, err)
	own, err := strconv.Atoi(status["Seccomp_filters"])
	assert.NilError(t, err, "Linux 5.9 and later count a process's filters")
	wantBy, wantFilters := hello.SeccompByEngine, own
	if status["Seccomp"] != "2" {
		wantBy, wantFilters = hello.SeccompByRunner, 1
	}
	h, r := runRunnerHello(t, `{"source":"grep -E '^Seccomp(_filters)?:' /proc/self/status"}`, "--exec", "sh")
	assert.Check(t, is.Equal(h.Selfcheck.SeccompBy, wantBy))
	assert.Check(t, is.Equal(h.Selfcheck.Seccomp, 2))
	assert.Assert(t, r.OK, "%+v", r.Error)
	assert.Check(t, is.Equal(r.Output, "Seccomp:\t2\nSeccomp_filters:\t"+strconv.Itoa(wantFilters)+"\n"))
}
