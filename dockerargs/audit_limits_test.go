package dockerargs

import (
	"errors"
	"slices"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/limits/seccomp"
)

// TestAuditRuntimeAndSizes: a runtime enforces every boundary, so one the
// auditor did not allow is a finding; sizes outside the policy's range are
// findings as run refuses them.
func TestAuditRuntimeAndSizes(t *testing.T) {
	argv := policyArgv()
	custom := withFlags("--runtime=totally-custom")
	r := audit(t, custom)
	assert.Check(t, is.Equal(statusOf(r, "runtime"), Violated))
	r, err := Audit(custom, AuditOptions{AllowRuntimes: []string{"totally-custom"}, Seccomp: policyProfile})
	assert.NilError(t, err)
	assert.Check(t, r.Compliant(), "%+v", r.Problems())

	huge := replace([]string{"--memory", "512m", "--memory-swap", "512m"}, "--memory", "2000g", "--memory-swap", "2000g")
	r = audit(t, huge)
	assert.Check(t, is.Equal(statusOf(r, "memory limit"), Violated))

	// Another client is named, or the argv is not read at all.
	podman := slices.Concat([]string{"podman"}, argv[1:])
	_, err = Audit(podman, AuditOptions{})
	assert.ErrorContains(t, err, `not a docker run command: the first word is "podman", not the client docker`)
	_, err = Audit(podman, AuditOptions{CLI: "podman"})
	assert.NilError(t, err)
}

// TestAuditSeccompContent: the profile an argv names must be the policy's,
// byte for byte; a file that could not be read cannot be verified.
func TestAuditSeccompContent(t *testing.T) {
	tampered := append(slices.Clone(seccomp.Profile()), ' ')
	for name, tc := range map[string]struct {
		file   ProfileFile
		want   Status
		detail string
	}{
		"policy":     {ProfileFile{Content: seccomp.Profile()}, Enforced, "the policy's allowlist"},
		"tampered":   {ProfileFile{Content: tampered}, Violated, "is not the policy's profile"},
		"unreadable": {ProfileFile{Err: errors.New("permission denied")}, Violated, "cannot verify"},
	} {
		t.Run(name, func(t *testing.T) {
			r, err := Audit(policyArgv(), AuditOptions{Seccomp: map[string]ProfileFile{testProfile: tc.file}})
			assert.NilError(t, err)
			assert.Check(t, is.Equal(statusOf(r, "seccomp allowlist"), tc.want))
			for _, f := range r.Findings {
				if f.ID == "seccomp" {
					assert.Check(t, is.Contains(f.Detail, tc.detail))
				}
			}
		})
	}
	assert.DeepEqual(t, SeccompPaths(policyArgv(), ""), []string{testProfile})
	assert.Check(t, is.Len(SeccompPaths(withFlags("--security-opt", "seccomp=unconfined"), ""), 1))
	assert.Check(t, is.Len(SeccompPaths([]string{"ls"}, ""), 0))
}

// runnerFinding audits the policy's argv with runner as the runner's
// arguments and returns row id's finding as "status: detail".
func runnerFinding(t *testing.T, id string, runner ...string) string {
	t.Helper()
	s := baseSpec()
	s.Args = runner
	c, err := Check(s)
	assert.NilError(t, err)
	for _, f := range audit(t, Render(c)).Findings {
		if f.ID == id {
			return string(f.Status) + ": " + f.Detail
		}
	}
	return ""
}

// TestAuditCPUTime: the CPU-time and test limits are runner arguments,
// not docker flags; audit reports them, and refuses one the runner could
// not keep.
func TestAuditCPUTime(t *testing.T) {
	for _, tc := range []struct {
		runner []string
		want   string
	}{
		{[]string{"--timeout", "10s"}, "enforced: none: the wall-clock timeout alone"},
		{[]string{"--timeout", "10s", "--cpu-time", "1s"}, "enforced: --cpu-time 1s (runner argument)"},
		{[]string{"--cpu-time", "1s"}, "enforced: --cpu-time 1s (runner argument)"},
		{[]string{"--timeout", "10s", "--cpu-time", "soon"}, `violated: --cpu-time "soon" is not a duration`},
		{[]string{"--timeout", "2s", "--cpu-time", "5s"}, "violated: --cpu-time 5s: cpu-time: must be at most the timeout (2s) (got \"5s\")"},
		{[]string{"--timeout", "10s", "--cpu-time", "1ms"}, "violated: --cpu-time 1ms: cpu-time: must be at least 10ms (got \"1ms\")"},
		{[]string{"--timeout", "10s", "--exec", "python3", "--cpu-time", "soon"}, "enforced: none: the wall-clock timeout alone"},
		// A judge's test limit, within the same rules' range.
		{[]string{"--timeout", "10s", "--cpu-time", "1s", "--test-timeout", "2s"}, "enforced: --cpu-time 1s, --test-timeout 2s (runner argument)"},
		{[]string{"--timeout", "5s", "--test-timeout", "20s"}, "violated: --test-timeout 20s: test-timeout: must be at most the timeout (5s) (got \"20s\")"},
		{[]string{"--timeout", "5s", "--test-timeout", "soon"}, `violated: --test-timeout "soon" is not a duration`},
		{[]string{"--timeout", "10s", "--cpu-time", "1s", "--test-timeout", "2s", "--time-factor", "2"},
			"enforced: --cpu-time 1s, --test-timeout 2s, --time-factor 2 (each test's limits times 2) (runner argument)"},
		{[]string{"--timeout", "10s", "--time-factor", "20"}, `violated: --time-factor 20: time-factor: must be from 1 to 10 (got "20")`},
		{[]string{"--timeout", "10s", "--time-factor", "x2"}, `violated: --time-factor "x2" is not a number`},
	} {
		assert.Check(t, is.Equal(runnerFinding(t, "cpu-time", tc.runner...), tc.want), "%q", tc.runner)
	}
}

// TestAuditThreads: an interpreter's thread pools are held by the
// runner's --threads, which must be the policy's CPUs; Starlark needs none.
func TestAuditThreads(t *testing.T) {
	const missing = "missing: no --threads: an interpreter's numeric libraries would size their pools by the host's CPUs"
	for _, tc := range []struct {
		runner []string
		want   string
	}{
		{[]string{"--timeout", "10s"}, "enforced: none: no interpreter (Starlark runs in the runner)"},
		{[]string{"--timeout", "10s", "--threads", "1", "--exec", "python3", "-"}, "enforced: --threads 1 (runner argument)"},
		{[]string{"--timeout", "10s", "--exec", "python3", "-"}, missing},
		{[]string{"--timeout", "10s", "--threads", "8", "--exec", "python3", "-"}, "violated: --threads 8, want 1"},
		{[]string{"--timeout", "10s", "--exec", "python3", "--threads", "1"}, missing},
	} {
		assert.Check(t, is.Equal(runnerFinding(t, "threads", tc.runner...), tc.want), "%q", tc.runner)
	}
}

// TestAuditPIDsPerRuntime: gVisor's column of the pids row is its own: the
// host's limit leaves room for gVisor's threads and RLIMIT_NPROC caps the
// program; each half is judged, and runc's limit stays 64.
func TestAuditPIDsPerRuntime(t *testing.T) {
	s := baseSpec()
	s.Runtime = "runsc"
	runsc := mustRender(t, s)
	r := audit(t, runsc)
	assert.Check(t, r.Compliant(), "%+v", r.Problems())
	assert.Check(t, is.Equal(finding(r, "pids").Detail, "--pids-limit 320 and --ulimit nproc=64:64 (gVisor)"))
	assert.Check(t, is.Contains(finding(r, "runtime").Detail, "--runtime runsc (the boundary table's runsc column judges every run's hello)"))

	for _, tc := range []struct {
		name string
		argv []string
		want Status
	}{
		{"runsc without nproc", swap(runsc, "nproc=64:64", "core=0:0"), Missing},
		{"runsc with a wider nproc", swap(runsc, "nproc=64:64", "nproc=65:65"), Violated},
		{"runsc with a host limit past gVisor's room", swap(runsc, "320", "321"), Violated},
		{"runc with gVisor's host limit", swap(policyArgv(), "64", "320"), Violated},
		// runc's argv under a gVisor name: 64 is within gVisor's host
		// range, but the program's own cap is missing.
		{"runc's argv for gVisor by another name", withFlags("--runtime=runsc-debian"), Missing},
	} {
		r := audit(t, tc.argv)
		assert.Check(t, is.Equal(finding(r, "pids").Status, tc.want), "%s: %s", tc.name, finding(r, "pids").Detail)
	}
}

// swap replaces the first argument equal to old.
func swap(argv []string, old, repl string) []string {
	out := slices.Clone(argv)
	out[slices.Index(out, old)] = repl
	return out
}

func finding(r Report, id string) Finding {
	for _, f := range r.Findings {
		if f.ID == id {
			return f
		}
	}
	return Finding{}
}

func TestCheckRefusesAnUnknownRuntime(t *testing.T) {
	s := baseSpec()
	s.Runtime = "crun"
	_, err := Check(s)
	assert.ErrorContains(t, err, `--runtime: "crun" is not a runtime the boundary table proves`)
}
