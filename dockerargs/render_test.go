package dockerargs

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"

	"github.com/synapse-lang/synapse-isolation/limits"
	"github.com/synapse-lang/synapse-isolation/limits/seccomp"
)

var testImage = "sha256:" + strings.Repeat("0123456789abcdef", 4)

// testProfile is the seccomp profile's path with a placeholder for the
// user's cache dir; policyProfile is that file as the CLI would read it.
var (
	testProfile   = "$CACHE/synapse-isolation/" + seccomp.FileName()
	policyProfile = map[string]ProfileFile{testProfile: {Content: seccomp.Profile()}}
)

// resolved is c resolved; the tests' configs are all in range.
func resolved(c limits.Config) limits.Resolved {
	r, err := c.Resolve()
	if err != nil {
		panic(err)
	}
	return r
}

func baseSpec() Spec {
	return Spec{
		Limits:   resolved(limits.Config{}),
		Name:     "synapse-iso-0123456789abcdef",
		RunID:    "0123456789abcdef",
		Deadline: 1764409200,
		Seccomp:  testProfile,
		Image:    testImage,
		Args:     []string{"--timeout", "10s"},
	}
}

func TestRenderGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Spec)
	}{
		{"defaults", func(*Spec) {}},
		{"memory-1g", func(s *Spec) { s.Limits = resolved(limits.Config{Memory: 1 << 30}) }},
		{"memory-bytes", func(s *Spec) { s.Limits = resolved(limits.Config{Memory: 64<<20 + 1}) }},
		{"exec", func(s *Spec) { s.Args = append(s.Args, "--exec", "python3", "-") }},
		{"selfcheck", func(s *Spec) { s.Args = append(s.Args, "--selfcheck") }},
		{"cli", func(s *Spec) { s.CLI = "podman" }},
		{"context", func(s *Spec) { s.Context = "remote-vm" }},
		{"runtime", func(s *Spec) { s.Runtime = "runsc" }},
		{"owner", func(s *Spec) { s.Owner = "8e2b1c4a-7d1f-4a58-9b1e-3c5d6f708192:4242:123456" }},
		{"all-options", func(s *Spec) {
			s.CLI, s.Context, s.Runtime, s.Limits = "/usr/local/bin/docker", "remote-vm", "runsc", resolved(limits.Config{Memory: 256 << 20})
			s.Args = append(s.Args, "--exec", "python3", "-")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := baseSpec()
			tc.edit(&s)
			golden.Assert(t, strings.Join(mustRender(t, s), "\n")+"\n", tc.name+".golden")
		})
	}
}

func TestRenderStartsWithTheCard(t *testing.T) {
	got := strings.Join(mustRender(t, baseSpec()), " ")
	card := "docker run --rm --user 65534:65534 --cap-drop=ALL --security-opt no-new-privileges --read-only " +
		"--tmpfs /tmp:rw,noexec,nosuid,nodev,size=32m,mode=1777 --network none --cpus 1 --pids-limit 64 " +
		"--ulimit nofile=64:64 --ulimit core=0:0 --memory 512m --memory-swap 512m --ipc none --log-driver none " +
		"--pull never --interactive --security-opt seccomp=" + testProfile + " --name "
	assert.Assert(t, strings.HasPrefix(got, card), got)
}

// mustRender checks and renders a spec that must be valid.
func mustRender(t testing.TB, s Spec) []string {
	t.Helper()
	c, err := Check(s)
	assert.NilError(t, err)
	return Render(c)
}

// TestCheckRefusesWhatCouldBeMisread: Render takes only a checked spec,
// and Check refuses every field that could reach the argv as something
// else, with the policy's own messages.
func TestCheckRefusesWhatCouldBeMisread(t *testing.T) {
	for name, tc := range map[string]struct {
		edit func(*Spec)
		want string
	}{
		"flag as name":    {func(s *Spec) { s.Name = "--privileged" }, `name: must match [a-zA-Z0-9][a-zA-Z0-9_.-]+ (got "--privileged")`},
		"flag as context": {func(s *Spec) { s.Context = "-H" }, `context: must match`},
		"runtime":         {func(s *Spec) { s.Runtime = "--privileged" }, `runtime: must match`},
		"run id":          {func(s *Spec) { s.RunID = "a b" }, `run id: must match`},
		"tag":             {func(s *Spec) { s.Image = "python:latest" }, "image: must be an immutable image ID"},
		"no image":        {func(s *Spec) { s.Image = "" }, "image: is required"},
		"unresolved":      {func(s *Spec) { s.Limits = limits.Resolved{Config: limits.Config{Memory: 1 << 20}} }, "limits: not resolved"},
		"no profile":      {func(s *Spec) { s.Seccomp = "" }, "no seccomp profile file"},
	} {
		t.Run(name, func(t *testing.T) {
			s := baseSpec()
			tc.edit(&s)
			_, err := Check(s)
			assert.ErrorContains(t, err, tc.want)
		})
	}
	_, err := Check(baseSpec())
	assert.NilError(t, err)
}

// TestNamedIsCheckOfTheRenamedSpec: a checked spec named anew renders
// what Check of the spec with that run id and name renders, and a name
// Check would refuse is refused.
func TestNamedIsCheckOfTheRenamedSpec(t *testing.T) {
	c, err := Check(baseSpec())
	assert.NilError(t, err)
	named, err := c.Named("fedcba9876543210", "synapse-iso-fedcba9876543210")
	assert.NilError(t, err)
	s := baseSpec()
	s.RunID, s.Name = "fedcba9876543210", "synapse-iso-fedcba9876543210"
	want, err := Check(s)
	assert.NilError(t, err)
	assert.DeepEqual(t, Render(named), Render(want))
	_, err = c.Named("a b", "x1")
	assert.ErrorContains(t, err, "run id: must match")
	_, err = c.Named("ab", "--privileged")
	assert.ErrorContains(t, err, "name: must match")
}
