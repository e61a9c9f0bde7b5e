// Package isolation is the host-side supervisor: it runs one request in a
// fresh, locked-down container through the docker CLI, bounds everything it
// reads back, removes the container daemon-side, and returns one verdict.
package isolation

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/synapse-lang/synapse-isolation/dockerargs"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// NamePrefix starts every container name the tool generates.
const NamePrefix = "synapse-iso-"

// Options configures one run. Image is required; the zero value of every
// other field means the policy default.
type Options struct {
	// Image is the immutable image ID (sha256:...).
	Image string
	// Limits are the configurable bounds; zero fields take the defaults.
	Limits limits.Config
	// Name is the container name; empty means a fresh random one.
	Name string
	// CLI is the docker-compatible client binary; empty means docker from PATH.
	CLI string
	// Context and Runtime select a docker context and an OCI runtime.
	Context, Runtime string
	// Exec, when set, makes the runner feed the source to this command
	// (an interpreter baked into the image) instead of evaluating Starlark.
	Exec []string
	// Selfcheck makes the runner report what the container sees instead of
	// running a program (used by doctor).
	Selfcheck bool
	// Env is the docker client's environment; nil means this process's.
	// It configures the client only: nothing in it reaches the container.
	Env []string
}

// withDefaults fills the zero fields.
func (o Options) withDefaults() Options {
	if o.Limits.Memory == 0 {
		o.Limits.Memory = limits.DefaultMemory
	}
	if o.Limits.Timeout == 0 {
		o.Limits.Timeout = limits.DefaultTimeout
	}
	if o.CLI == "" {
		o.CLI = dockerargs.DefaultCLI
	}
	return o
}

// Plan is a fully resolved run: the container's identity and the exact argv.
type Plan struct {
	Name     string
	Deadline time.Time
	Argv     []string
}

// NewPlan validates o and renders the argv a run started at now executes.
// The CLI's `argv` command prints exactly this.
func NewPlan(o Options, now time.Time) (Plan, error) {
	o = o.withDefaults()
	if err := o.Limits.Validate(); err != nil {
		return Plan{}, err
	}
	if o.Exec != nil && (len(o.Exec) == 0 || o.Exec[0] == "") {
		return Plan{}, fmt.Errorf("exec: command must not be empty")
	}
	if o.Exec != nil && o.Selfcheck {
		return Plan{}, fmt.Errorf("conflicting options: exec and selfcheck")
	}
	name := o.Name
	if name == "" {
		name = NewName()
	}
	deadline := now.Add(o.Limits.Timeout)
	args := []string{"--timeout", o.Limits.Timeout.String()}
	switch {
	case o.Selfcheck:
		args = append(args, "--selfcheck")
	case o.Exec != nil:
		args = append(append(args, "--exec"), o.Exec...)
	}
	spec := dockerargs.Spec{
		CLI: o.CLI, Context: o.Context, Runtime: o.Runtime, Memory: o.Limits.Memory,
		Name: name, RunID: name, Deadline: deadline.Unix(), Image: o.Image, Args: args,
	}
	if err := spec.Validate(); err != nil {
		return Plan{}, err
	}
	return Plan{Name: name, Deadline: deadline, Argv: dockerargs.Render(spec)}, nil
}

// NewName returns a fresh random container name.
func NewName() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on Linux.
	return NamePrefix + hex.EncodeToString(b[:])
}
