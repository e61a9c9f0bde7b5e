package isolation

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/dockerargs"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/docker"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/removal"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/supervisor"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/runargs"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// planOf plans o's run the way planOn does, with d as the image's
// declaration, without a client.
func planOf(o Options, in planInput, d docker.Declared, now time.Time) (supervisor.Plan, error) {
	b, err := newBase(o, in)
	if err != nil {
		return supervisor.Plan{}, err
	}
	p, err := b.check()
	if err != nil {
		return supervisor.Plan{}, err
	}
	r, err := b.runner(d)
	if err != nil {
		return supervisor.Plan{}, err
	}
	return p.render(r, now), nil
}

// cacheEnv is an engine environment whose cache dir is the test's own.
func cacheEnv(t *testing.T) Engine {
	return Engine{Env: []string{"HOME=" + t.TempDir()}}
}

func TestPlan(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	e := cacheEnv(t)
	o := Options{Engine: e, Image: testImage, Name: "synapse-iso-x", Limits: limits.Config{Timeout: 3 * time.Second}}
	p, err := planOf(o, planInput{runID: "00112233aabbccdd"}, docker.Declared{}, now)
	assert.NilError(t, err)
	profile, err := docker.SeccompFile(e.Env)
	assert.NilError(t, err)
	lim, err := limits.Config{Timeout: 3 * time.Second}.Resolve()
	assert.NilError(t, err)
	spec, err := dockerargs.Check(dockerargs.Spec{Limits: lim, Name: "synapse-iso-x", RunID: "00112233aabbccdd",
		Deadline: 1_800_000_003, Seccomp: profile, Image: testImage, Args: []string{"--timeout", "3s"}})
	assert.NilError(t, err)
	assert.DeepEqual(t, p.Argv, dockerargs.Render(spec))
	assert.Equal(t, p.Deadline, now.Add(3*time.Second))
	assert.DeepEqual(t, p.Runner, runargs.Args{Timeout: 3 * time.Second})
	assert.DeepEqual(t, p.Limits.Config, limits.Config{Memory: limits.DefaultMemory, Timeout: 3 * time.Second})

	o = Options{Engine: e, Image: testImage, Exec: []string{"python3", "-"}}
	p, err = planOf(o, planInput{}, docker.Declared{Exec: []string{"ignored"}}, now)
	assert.NilError(t, err)
	assert.DeepEqual(t, p.Argv[len(p.Argv)-7:], []string{"--timeout", "10s", "--threads", "1", "--exec", "python3", "-"})
	assert.Equal(t, len(p.RunID), 16)
	assert.Equal(t, p.Name, namePrefix+p.RunID, "an unnamed run is named after its run id")

	p2, _ := planOf(Options{Engine: e, Image: testImage}, planInput{}, docker.Declared{}, now)
	assert.Assert(t, p2.RunID != p.RunID, "run ids are random per run")

	// The name is cosmetic: two runs given one name still get their own ids.
	a, _ := planOf(Options{Engine: e, Image: testImage, Name: "shared"}, planInput{}, docker.Declared{}, now)
	b, _ := planOf(Options{Engine: e, Image: testImage, Name: "shared"}, planInput{}, docker.Declared{}, now)
	assert.Equal(t, a.Name, b.Name)
	assert.Assert(t, a.RunID != b.RunID)

	p, err = planOf(Options{Engine: e, Image: testImage}, planInput{selfcheck: true}, docker.Declared{Exec: []string{"python3", "-"}}, now)
	assert.NilError(t, err)
	assert.Equal(t, p.Argv[len(p.Argv)-1], "--selfcheck", "a selfcheck runs no program, whatever the image declares")

	// A warm container gets the image's preload; a cold run does not.
	py := docker.Declared{Exec: []string{"python3", "-"}, Preload: []string{"numpy"}}
	p, err = planOf(Options{Engine: e, Image: testImage}, planInput{idle: time.Minute}, py, now)
	assert.NilError(t, err)
	assert.DeepEqual(t, p.Runner.Preload, []string{"numpy"})
	assert.Equal(t, p.Deadline, now.Add(time.Minute+limits.DefaultTimeout))
	p, err = planOf(Options{Engine: e, Image: testImage}, planInput{}, py, now)
	assert.NilError(t, err)
	assert.Check(t, p.Runner.Preload == nil)

	// No cache dir, no profile, no plan: the engine's default filter is never used.
	_, err = planOf(Options{Engine: Engine{Env: []string{}}, Image: testImage}, planInput{}, docker.Declared{}, now)
	assert.Check(t, is.Equal(supervisor.VerdictOf(err), protocol.SandboxFailure))
	assert.Check(t, is.ErrorContains(err, "no cache directory"))
}

func TestPlanRejects(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	e := cacheEnv(t)
	for _, tc := range []struct {
		name string
		o    Options
		in   planInput
		want string
	}{
		{"tag", Options{Image: "python:latest"}, planInput{}, `image: must be an immutable image ID sha256:<64 lowercase hex digits>, not a name or tag: docker image inspect --format '{{.Id}}' NAME prints a local image's ID (scripts/build-image.sh prints the one it built) (got "python:latest")`},
		{"no image", Options{}, planInput{}, "image: is required: an image ID like sha256:<64 hex digits> (scripts/build-image.sh prints one)"},
		{"memory", Options{Image: testImage, Limits: limits.Config{Memory: 1 << 20}}, planInput{}, `memory: must be at least 64m (got "1m")`},
		{"timeout", Options{Image: testImage, Limits: limits.Config{Timeout: time.Hour}}, planInput{}, `timeout: must be at most 10m0s (got "1h0m0s")`},
		{"empty exec", Options{Image: testImage, Exec: []string{}}, planInput{}, "exec: the command must not be empty"},
		{"exec and selfcheck", Options{Image: testImage, Exec: []string{"sh"}}, planInput{selfcheck: true}, "conflicting options: exec and selfcheck"},
		{"flag as name", Options{Image: testImage, Name: "--privileged"}, planInput{}, `name: must match [a-zA-Z0-9][a-zA-Z0-9_.-]+ (got "--privileged")`},
		{"one-letter name", Options{Image: testImage, Name: "a"}, planInput{}, `name: must match [a-zA-Z0-9][a-zA-Z0-9_.-]+ (got "a")`},
		{"runtime", Options{Image: testImage, Runtime: "--privileged"}, planInput{}, `runtime: must match [a-zA-Z0-9][a-zA-Z0-9_.-]+ (got "--privileged")`},
		{"context", Options{Image: testImage, Engine: Engine{Context: "x;y"}}, planInput{}, `context: must match [a-zA-Z0-9][a-zA-Z0-9_.-]+ (got "x;y")`},
		{"run id", Options{Image: testImage}, planInput{runID: "a b"}, `run id: must match [a-zA-Z0-9][a-zA-Z0-9_.-]+ (got "a b")`},
		{"owner", Options{Image: testImage}, planInput{owner: "me"}, `owner: must be boot-id:pid:start (got "me")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Engine.Env = e.Env
			_, err := planOf(tc.o, tc.in, docker.Declared{}, now)
			assert.Check(t, is.Equal(supervisor.VerdictOf(err), protocol.Rejected))
			assert.Error(t, err, tc.want)
		})
	}
}

// countRenders is a plan input whose renderer counts its renders.
func countRenders() (planInput, *atomic.Int64) {
	var n atomic.Int64
	return planInput{owner: removal.SelfLabel(), render: func(c dockerargs.Checked) []string {
		n.Add(1)
		return dockerargs.Render(c)
	}}, &n
}

// A run renders its argv once, whether or not the image is asked for its
// interpreter; a pool renders none until a container starts, then one
// per container.
func TestARunRendersItsArgvOnce(t *testing.T) {
	t.Parallel()
	in, n := countRenders()
	o, _ := fake(t, "ok")
	_, err := runWith(context.Background(), Request{Source: "1+2"}, o, in)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(n.Load(), int64(1)), "a run of an image known to declare nothing")

	n.Store(0)
	o, _ = fake(t, "python-label")
	o.Image = "sha256:" + strings.Repeat("5e", 32)
	res, err := runWith(context.Background(), Request{Source: "1+2"}, o, in)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.Interpreter, "python3 -"))
	assert.Check(t, is.Equal(n.Load(), int64(1)), "a run whose image was asked")

	n.Store(0)
	o, _ = fake(t, "ok")
	_, err = o.argvWith(time.Time{}, in)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(n.Load(), int64(1)), "argv")

	n.Store(0)
	assert.NilError(t, o.checkWith(in))
	o.Exec = []string{}
	assert.Check(t, is.ErrorContains(o.checkWith(in), "exec: the command must not be empty"))
	o.Exec, o.Limits.Memory = nil, 1<<20
	assert.Check(t, is.ErrorContains(o.checkWith(in), "memory: must be at least 64m"))
	assert.Check(t, is.Equal(n.Load(), int64(0)), "Check renders nothing")

	o, state := fake(t, "ok")
	p, err := newPool(context.Background(), PoolOptions{Run: o, Parallel: 1, Idle: time.Minute}, in)
	assert.NilError(t, err)
	// Draining, the pool starts a container only for a request that waits
	// for one, so each of the three gets its own and no other starts: the
	// count holds whenever Close comes.
	p.Drain()
	for i := 0; i < 3; i++ {
		_, err := p.Run(context.Background(), Request{Source: "1+2"}, time.Now())
		assert.NilError(t, err)
	}
	assert.NilError(t, p.Close())
	assert.Check(t, is.Equal(len(runCalls(state)), 3))
	assert.Check(t, is.Equal(n.Load(), int64(3)), "one render per container, none to check the options")
}
