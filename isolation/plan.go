package isolation

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/synapse-lang/synapse-isolation/dockerargs"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// namePrefix starts every container name the tool generates.
const namePrefix = "synapse-iso-"

// Engine is the Docker engine that run, gc and doctor talk to, and the
// client binary that reaches it.
type Engine struct {
	// CLI is the docker-compatible client binary; empty means docker from
	// the PATH of Env.
	CLI string
	// Context selects a docker CLI context (a remote engine); empty means
	// the client's current one.
	Context string
	// Env is the client's environment; nil means this process's. It
	// configures the client only: nothing in it reaches the container.
	Env []string
}

// Options configures one run. Image is required; every other zero field
// means the policy default.
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

	// runID identifies the run on its container's label, which cleanup,
	// gc and the OOM query go by: empty means a fresh random one (Argv's
	// reproducible output derives one).
	runID string
	// owner is the owner label naming the supervisor process; Run fills
	// in its own process.
	owner string
	// selfcheck makes the runner report what the container sees instead
	// of running a program (doctor).
	selfcheck bool
	// idle, set by a Pool for a container started ahead of its request,
	// bounds the wait for the request; the container then ends on its own.
	// Zero for a run that sends its request at once.
	idle time.Duration
	// preload is what the image declares a warm container imports ahead
	// of its request (preloadLabel), set with the interpreter it declares.
	preload []string
	// source and compile are the language the image declares
	// (languageLabel), set with its run command as Exec.
	source  string
	compile []string
	// profile is the path of the seccomp profile file (seccompFile), set
	// by planRun; a plan without one is refused.
	profile string
}

// runPlan is a fully resolved, validated run: its identity, its bounds and
// the exact argv it executes.
type runPlan struct {
	// RunID is unique per run; the container carries it as a label.
	RunID string
	// Name is the container name (cosmetic).
	Name string
	// Deadline is the latest the container may live: the host deadline of
	// a run that sends its request at once, plus the idle cap of one
	// started ahead of its request. The container carries it as a label.
	Deadline time.Time
	// Image and Limits are the validated image ID and bounds.
	Image  string
	Limits limits.Config
	// Runner is the runner's command line, rendered at the end of Argv.
	Runner protocol.Args
	// Argv is the exact docker argv, client binary first.
	Argv []string
	// Runtime is the --runtime name asked for (empty: the engine's
	// default), and Column the boundary table's column that judges the
	// hello under it.
	Runtime string
	Column  limits.Runtime
	// profile is the seccomp profile file the argv names.
	profile string
}

// interpreterOf names what a runner's program runs under, for a Result.
func interpreterOf(r protocol.Args) string {
	switch {
	case r.Selfcheck:
		return ""
	case r.Exec == nil:
		return "starlark"
	}
	return strings.Join(r.Exec, " ")
}

// planOn plans o's run on its engine and returns the client for it:
// planRun, the client's proxy check, and, when o names no command (nor a
// selfcheck, which runs none), the interpreter its image declares
// (client.interpreter), asked only once the options passed, so a refusal
// asks docker nothing. A zero now is the clock at each plan: the run's
// deadline then counts from once the image was asked, so a slow inspect
// (an engine over ssh) takes nothing from the program's timeout.
func planOn(ctx context.Context, o Options, now time.Time) (runPlan, *client, error) {
	at := func() time.Time {
		if now.IsZero() {
			return time.Now()
		}
		return now
	}
	plan, err := planRun(o, at())
	if err != nil {
		return plan, nil, err
	}
	o.profile = plan.profile
	c, err := newClient(o.Engine)
	if err != nil {
		return plan, nil, err
	}
	if err := checkProxies(c.env); err != nil {
		return plan, nil, err
	}
	declared, err := withInterpreter(ctx, c, o)
	if err != nil || (declared.Exec == nil && !now.IsZero()) {
		return plan, c, err
	}
	// The first plan's profile file, checked, and its run id: only the
	// interpreter and the clock are new.
	declared.runID = plan.RunID
	plan, err = validPlan(declared, at())
	return plan, c, err
}

// withInterpreter is o with the interpreter its image declares when o
// names no command and is no selfcheck; an image ID is the same image on
// every engine, so any engine's client may be asked.
func withInterpreter(ctx context.Context, c *client, o Options) (Options, error) {
	if o.Exec != nil || o.selfcheck {
		return o, nil
	}
	d, err := c.declared(ctx, o.Image)
	o.Exec, o.preload, o.source, o.compile = d.exec, d.preload, d.source, d.compile
	return o, err
}

// planRun is the one plan step of every run, warm or not, and of Argv: it
// puts the seccomp profile file in place, checked again for each run
// (owner, mode and content), then validates o and renders the argv of a
// run started at now. A profile it cannot trust is a sandbox failure;
// options it cannot accept are rejected.
func planRun(o Options, now time.Time) (runPlan, error) {
	path, err := seccompFile(o.Engine.environ())
	if err != nil {
		return runPlan{}, &Error{Verdict: SandboxFailure, Err: err}
	}
	o.profile = path
	return validPlan(o, now)
}

// validPlan is newPlan with its one verdict: options it cannot accept are
// rejected.
func validPlan(o Options, now time.Time) (runPlan, error) {
	plan, err := newPlan(o, now)
	if err != nil {
		return runPlan{}, &Error{Verdict: Rejected, Err: err}
	}
	return plan, nil
}

// newPlan validates o and renders the argv of a run started at now. It is
// the only validator on the run path; the CLI's `argv` prints its Argv.
func newPlan(o Options, now time.Time) (runPlan, error) {
	lim, err := o.Limits.Resolve()
	if err != nil {
		return runPlan{}, err
	}
	runner := protocol.Args{Timeout: lim.Timeout, Idle: o.idle, Exec: o.Exec, Selfcheck: o.selfcheck, CPUTime: lim.CPUTime,
		TestTimeout: lim.TestTimeout, Source: o.source, Compile: o.compile}
	if o.Exec != nil {
		runner.Threads = limits.Threads
	}
	if o.idle > 0 && o.preload != nil {
		// Only a warm container has time before its request; a cold run
		// starts its interpreter with the request.
		runner.Preload = o.preload
	}
	if err := runner.Validate(); err != nil {
		return runPlan{}, err
	}
	runID := o.runID
	if runID == "" {
		runID = newRunID()
	}
	name := o.Name
	if name == "" {
		name = namePrefix + runID
	}
	if o.owner != "" {
		if _, ok := parseOwner(o.owner); !ok {
			return runPlan{}, &limits.FieldError{Field: "owner", Value: o.owner, Msg: "must be boot-id:pid:start"}
		}
	}
	deadline := now.Add(o.idle + lim.Timeout)
	// The argv's own fields are checked by dockerargs.Check, the one
	// validator Render accepts.
	spec, err := dockerargs.Check(dockerargs.Spec{
		CLI: o.Engine.CLI, Context: o.Engine.Context, Runtime: o.Runtime, Memory: lim.Memory, Seccomp: o.profile,
		Name: name, RunID: runID, Deadline: deadline.Unix(), Owner: o.owner, Image: o.Image, Args: runner.Args(),
	})
	if err != nil {
		return runPlan{}, err
	}
	argv := dockerargs.Render(spec)
	column, _ := limits.RuntimeOf(o.Runtime) // dockerargs.Check refused any other
	return runPlan{
		RunID: runID, Name: name, Deadline: deadline, Image: o.Image, Limits: lim, Runner: runner, Argv: argv,
		Runtime: o.Runtime, Column: column, profile: o.profile,
	}, nil
}

// Argv returns the exact docker argv that Run executes for o: the one
// validator, the one renderer. Without o.Exec it asks o's engine for the
// interpreter the image declares, as Run does. With at zero it is rendered as a run started
// now would be, with a fresh run id and this process as its owner. With at
// set it is pinned: the run id is derived from the name and at, and the
// owner label, which names the process that runs the container, is left
// out, so the same options print the same argv.
func (o Options) Argv(at time.Time) ([]string, error) {
	if at.IsZero() {
		at = time.Now()
		o = o.ownedBySelf()
	} else {
		sum := sha256.Sum256([]byte(fmt.Sprintf("argv --at %d --name %s", at.Unix(), o.Name)))
		o.runID, o.owner = hex.EncodeToString(sum[:8]), ""
	}
	if o.Exec != nil || o.selfcheck {
		// Nothing to ask the image: the argv is the options' alone, and
		// needs no docker client to be rendered.
		p, err := planRun(o, at)
		return p.Argv, err
	}
	p, _, err := planOn(context.Background(), o, at)
	if err != nil {
		return nil, err
	}
	return p.Argv, nil
}

// newRunID returns a fresh random run id: 16 hex digits.
func newRunID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on Linux.
	return hex.EncodeToString(b[:])
}
