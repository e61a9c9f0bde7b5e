package isolation

import (
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/synapse-lang/synapse-isolation/dockerargs"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// testProfile stands for the seccomp profile file's path.
const testProfile = "/cache/synapse-isolation/seccomp.json"

func TestNewPlan(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	p, err := newPlan(Options{profile: testProfile, Image: testImage, Name: "synapse-iso-x", runID: "00112233aabbccdd",
		Limits: limits.Config{Timeout: 3 * time.Second}}, now)
	assert.NilError(t, err)
	spec, err := dockerargs.Check(dockerargs.Spec{Memory: limits.DefaultMemory, Name: "synapse-iso-x", RunID: "00112233aabbccdd",
		Deadline: 1_800_000_003, Seccomp: testProfile, Image: testImage, Args: []string{"--timeout", "3s"}})
	assert.NilError(t, err)
	want := dockerargs.Render(spec)
	assert.DeepEqual(t, p.Argv, want)
	assert.Equal(t, p.Deadline, now.Add(3*time.Second))
	assert.DeepEqual(t, p.Runner, protocol.Args{Timeout: 3 * time.Second})
	assert.DeepEqual(t, p.Limits, limits.Config{Memory: limits.DefaultMemory, Timeout: 3 * time.Second})

	p, err = newPlan(Options{profile: testProfile, Image: testImage, Exec: []string{"python3", "-"}}, now)
	assert.NilError(t, err)
	assert.DeepEqual(t, p.Argv[len(p.Argv)-7:], []string{"--timeout", "10s", "--threads", "1", "--exec", "python3", "-"})
	assert.Equal(t, len(p.RunID), 16)
	assert.Equal(t, p.Name, namePrefix+p.RunID, "an unnamed run is named after its run id")

	p2, _ := newPlan(Options{profile: testProfile, Image: testImage}, now)
	assert.Assert(t, p2.RunID != p.RunID, "run ids are random per run")

	// The name is cosmetic: two runs given one name still get their own ids.
	a, _ := newPlan(Options{profile: testProfile, Image: testImage, Name: "shared"}, now)
	b, _ := newPlan(Options{profile: testProfile, Image: testImage, Name: "shared"}, now)
	assert.Equal(t, a.Name, b.Name)
	assert.Assert(t, a.RunID != b.RunID)

	p, err = newPlan(Options{profile: testProfile, Image: testImage, selfcheck: true}, now)
	assert.NilError(t, err)
	assert.Equal(t, p.Argv[len(p.Argv)-1], "--selfcheck")

	// No profile, no plan: the engine's default filter is never used.
	_, err = newPlan(Options{Image: testImage}, now)
	assert.ErrorContains(t, err, "no seccomp profile file")
}

func TestNewPlanRejects(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	for _, tc := range []struct {
		name string
		o    Options
		want string
	}{
		{"tag", Options{Image: "python:latest"}, `image: must be an immutable image ID sha256:<64 lowercase hex digits>, not a name or tag: docker image inspect --format '{{.Id}}' NAME prints a local image's ID (scripts/build-image.sh prints the one it built) (got "python:latest")`},
		{"no image", Options{}, "image: is required: an image ID like sha256:<64 hex digits> (scripts/build-image.sh prints one)"},
		{"memory", Options{Image: testImage, Limits: limits.Config{Memory: 1 << 20}}, `memory: must be at least 64m (got "1m")`},
		{"timeout", Options{Image: testImage, Limits: limits.Config{Timeout: time.Hour}}, `timeout: must be at most 10m0s (got "1h0m0s")`},
		{"empty exec", Options{Image: testImage, Exec: []string{}}, "exec: the command must not be empty"},
		{"exec and selfcheck", Options{Image: testImage, Exec: []string{"sh"}, selfcheck: true}, "conflicting options: exec and selfcheck"},
		{"flag as name", Options{Image: testImage, Name: "--privileged"}, `name: must match [a-zA-Z0-9][a-zA-Z0-9_.-]+ (got "--privileged")`},
		{"one-letter name", Options{Image: testImage, Name: "a"}, `name: must match [a-zA-Z0-9][a-zA-Z0-9_.-]+ (got "a")`},
		{"runtime", Options{Image: testImage, Runtime: "--privileged"}, `runtime: must match [a-zA-Z0-9][a-zA-Z0-9_.-]+ (got "--privileged")`},
		{"context", Options{Image: testImage, Engine: Engine{Context: "x;y"}}, `context: must match [a-zA-Z0-9][a-zA-Z0-9_.-]+ (got "x;y")`},
		{"run id", Options{Image: testImage, runID: "a b"}, `run id: must match [a-zA-Z0-9][a-zA-Z0-9_.-]+ (got "a b")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newPlan(tc.o, now)
			assert.Error(t, err, tc.want)
		})
	}
}
