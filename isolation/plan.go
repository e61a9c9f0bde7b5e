package isolation

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/synapse-lang/synapse-isolation/dockerargs"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/docker"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/removal"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/supervisor"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/runargs"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// namePrefix starts every container name the tool generates.
const namePrefix = "synapse-iso-"

// Options configures one run: what a caller chooses, nothing else. Image
// is required; every other zero field means the policy default.
type Options struct {
	Engine Engine
	// Image is the immutable image ID (sha256:...).
	Image string
	// Limits are the configurable bounds; zero fields take the defaults.
	Limits limits.Config
	// Name is the container name; empty means synapse-iso-<run id>. It is
	// cosmetic: two runs may share one, and cleanup never goes by it.
	Name string
	// Runtime selects an OCI runtime such as runsc; empty means the engine's default.
	Runtime string
	// Exec, when set, makes the runner feed the source to this command
	// (an interpreter baked into the image) instead of evaluating Starlark.
	Exec []string
}

// interpreterOf names what a runner's program runs under, for a Result.
func interpreterOf(r runargs.Args) string {
	switch {
	case r.Selfcheck:
		return ""
	case r.Exec == nil:
		return "starlark"
	}
	return strings.Join(r.Exec, " ")
}

// planInput is what a plan takes beside the caller's Options: who runs
// the container and how it starts. Run, Argv, a Pool and doctor set it.
type planInput struct {
	// runID is the run's id; empty means a fresh random one (Argv's
	// pinned form derives one).
	runID string
	// owner is the owner label naming the supervisor process; empty
	// means none (Argv's pinned form).
	owner string
	// selfcheck makes the runner report what the container sees instead
	// of running a program (doctor).
	selfcheck bool
	// idle, for a Pool's container started ahead of its request, bounds
	// the wait for the request; zero for a run that sends it at once.
	idle time.Duration
	// render renders the argv; nil is dockerargs.Render, the one
	// renderer. A test counts the renders through it.
	render func(dockerargs.Checked) []string
}

// base is what every plan of one Options shares, checked once with
// nothing asked of docker: the limits resolved (limits.Config.Resolve,
// the one check of their bounds: once per Run, Argv and Check, once per
// Pool, never per container) and the owner read.
type base struct {
	o   Options
	in  planInput
	lim limits.Resolved
}

// newBase checks o and in; what it refuses is rejected.
func newBase(o Options, in planInput) (base, error) {
	lim, err := o.Limits.Resolve()
	if err != nil {
		return base{}, &Error{Verdict: protocol.Rejected, Err: err}
	}
	if in.owner != "" {
		if _, ok := removal.ParseOwner(in.owner); !ok {
			return base{}, &Error{Verdict: protocol.Rejected, Err: &limits.FieldError{Field: "owner", Value: in.owner, Msg: "must be boot-id:pid:start"}}
		}
	}
	return base{o: o, in: in, lim: lim}, nil
}

// pending is one run's plan before its image was asked: its identity,
// the seccomp profile file in place, and the argv's fields checked
// (dockerargs.Check); only the runner's arguments and the deadline are
// still to come.
type pending struct {
	base
	runID, name string
	spec        dockerargs.Checked
	column      limits.Runtime
}

// check starts a run's plan: a fresh run id (unless the input pins one),
// the profile file put in place, checked again for each run (owner, mode
// and content), and the argv's fields checked, once: a Pool's containers
// on one engine share them (next). A profile it cannot trust is a sandbox
// failure; fields it cannot accept are rejected.
func (b base) check() (pending, error) {
	profile, err := docker.SeccompFile(b.o.Engine.environ())
	if err != nil {
		return pending{}, &Error{Verdict: protocol.SandboxFailure, Err: err}
	}
	runID := cmp.Or(b.in.runID, newRunID())
	name := cmp.Or(b.o.Name, namePrefix+runID)
	spec, err := dockerargs.Check(dockerargs.Spec{
		CLI: b.o.Engine.CLI, Context: b.o.Engine.Context, Runtime: b.o.Runtime, Limits: b.lim, Seccomp: profile,
		Name: name, RunID: runID, Owner: b.in.owner, Image: b.o.Image,
	})
	if err != nil {
		return pending{}, &Error{Verdict: protocol.Rejected, Err: err}
	}
	column, _ := limits.RuntimeOf(b.o.Runtime) // dockerargs.Check refused any other
	return pending{base: b, runID: runID, name: name, spec: spec, column: column}, nil
}

// next is the plan of a Pool's next container from p, checked for its
// engine once (check): a fresh run id and name, and the profile file
// checked again (owner, mode and content), as before every run, since the
// CLI reads it at each docker run. The limits and the argv's other fields
// are p's, checked already.
func (p pending) next() (pending, error) {
	if _, err := docker.SeccompFile(p.o.Engine.environ()); err != nil {
		return pending{}, &Error{Verdict: protocol.SandboxFailure, Err: err}
	}
	p.runID = newRunID()
	p.name = namePrefix + p.runID // a Pool names no container (PoolOptions.Run)
	spec, err := p.spec.Named(p.runID, p.name)
	if err != nil {
		return pending{}, &Error{Verdict: protocol.Rejected, Err: err}
	}
	p.spec = spec
	return p, nil
}

// program is what the run's runner runs: Options.Exec, or, unless a
// selfcheck, what the image declares (d).
func (b base) program(d docker.Declared) docker.Declared {
	switch {
	case b.o.Exec != nil:
		return docker.Declared{Exec: b.o.Exec} // with a selfcheck, refused by CheckProgram
	case b.in.selfcheck:
		return docker.Declared{}
	}
	return d
}

// asks says whether the plan needs the image's declaration: only when
// Options names no command and the run is no selfcheck.
func (b base) asks() bool { return b.o.Exec == nil && !b.in.selfcheck }

// runner is the runner's command line for the program d declares
// (base.program), checked: the one check of the program's command and
// language. A Pool makes it once for all its containers.
func (b base) runner(d docker.Declared) (runargs.Args, error) {
	d = b.program(d)
	r := runargs.Args{Timeout: b.lim.Timeout, Idle: b.in.idle, Exec: d.Exec, Selfcheck: b.in.selfcheck, CPUTime: b.lim.CPUTime,
		TestTimeout: b.lim.TestTimeout, Source: d.Source, Compile: d.Compile, TimeFactor: d.TimeFactor}
	if d.Exec != nil {
		r.Threads = limits.Threads
	}
	if b.in.idle > 0 && d.Preload != nil {
		// Only a warm container has time before its request; a cold run
		// starts its interpreter with the request.
		r.Preload = d.Preload
	}
	if err := r.CheckProgram(); err != nil {
		return runargs.Args{}, &Error{Verdict: protocol.Rejected, Err: err}
	}
	return r, nil
}

// render finishes the plan of a run started at now with the runner's
// command line (base.runner) and renders its argv: the one render of a
// run.
func (p pending) render(runner runargs.Args, now time.Time) supervisor.Plan {
	deadline := now.Add(p.in.idle + p.lim.Timeout)
	render := p.in.render
	if render == nil {
		render = dockerargs.Render
	}
	return supervisor.Plan{
		RunID: p.runID, Name: p.name, Deadline: deadline, Image: p.o.Image, Limits: p.lim, Runner: runner,
		Argv: render(p.spec.Run(deadline.Unix(), runner.Args())), Runtime: p.o.Runtime, Column: p.column,
	}
}

// planOn plans a run of o on its engine and returns the client for it:
// the options checked first (newBase, check), so a refusal asks docker
// nothing; then the client and its proxy check; then the image asked and
// the argv rendered (finish). A zero now is the clock at the render: the
// run's deadline then counts from once the image was asked, so a slow
// inspect (an engine over ssh) takes nothing from the program's timeout.
func planOn(ctx context.Context, o Options, in planInput, now time.Time) (supervisor.Plan, *docker.Client, error) {
	b, p, err := checked(o, in)
	if err != nil {
		return supervisor.Plan{}, nil, err
	}
	c, err := clientFor(o.Engine)
	if err != nil {
		return supervisor.Plan{}, nil, err
	}
	plan, err := b.finish(ctx, p, c, now)
	return plan, c, err
}

// checked is newBase and check: everything that needs no docker.
func checked(o Options, in planInput) (base, pending, error) {
	b, err := newBase(o, in)
	if err != nil {
		return base{}, pending{}, err
	}
	p, err := b.check()
	return b, p, err
}

// finish asks c for the image's declaration when the plan needs it (an
// image ID is the same image on every engine, so any engine's client may
// be asked), checks the program and renders the argv.
func (b base) finish(ctx context.Context, p pending, c *docker.Client, now time.Time) (supervisor.Plan, error) {
	var d docker.Declared
	if b.asks() {
		var err error
		if d, err = declared(ctx, c, b.o.Image); err != nil {
			return supervisor.Plan{}, err
		}
	}
	runner, err := b.runner(d)
	if err != nil {
		return supervisor.Plan{}, err
	}
	return p.render(runner, cmp.Or(now, time.Now())), nil
}

// Check reports what in o a run would refuse that needs no docker to
// know: the limits, the argv's fields, the seccomp profile file, and the
// command when o names one (an image's own is checked once it is read).
// It renders nothing.
func (o Options) Check() error { return o.checkWith(planInput{owner: removal.SelfLabel()}) }

// checkWith is Check with the plan's input.
func (o Options) checkWith(in planInput) error {
	b, _, err := checked(o, in)
	if err == nil && !b.asks() {
		_, err = b.runner(docker.Declared{})
	}
	return err
}

// Argv returns the exact docker argv that Run executes for o: the one
// validator, the one renderer. Without o.Exec it asks o's engine for the
// interpreter the image declares, as Run does; with it, no docker client
// is needed. With at zero it is rendered as a run started now would be,
// with a fresh run id and this process as its owner. With at set it is
// pinned: the run id is derived from the name and at, and the owner
// label, which names the process that runs the container, is left out,
// so the same options print the same argv.
func (o Options) Argv(at time.Time) ([]string, error) { return o.argvWith(at, planInput{}) }

// argvWith is Argv with the plan's input, whose owner and run id it sets.
func (o Options) argvWith(at time.Time, in planInput) ([]string, error) {
	if at.IsZero() {
		at, in.owner = time.Now(), removal.SelfLabel()
	} else {
		sum := sha256.Sum256([]byte(fmt.Sprintf("argv --at %d --name %s", at.Unix(), o.Name)))
		in.runID = hex.EncodeToString(sum[:8])
	}
	b, p, err := checked(o, in)
	if err != nil {
		return nil, err
	}
	var c *docker.Client
	if b.asks() {
		if c, err = clientFor(o.Engine); err != nil {
			return nil, err
		}
	}
	plan, err := b.finish(context.Background(), p, c, at)
	return plan.Argv, err
}

// newRunID returns a fresh random run id: 16 hex digits.
func newRunID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on Linux.
	return hex.EncodeToString(b[:])
}
