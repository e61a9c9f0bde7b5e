package isolation

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/docker"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

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

// environ is the environment the engine's CLI gets, and where the
// profile's cache directory is read from: Env, or this process's.
func (e Engine) environ() []string {
	if e.Env == nil {
		return os.Environ()
	}
	return e.Env
}

// newClient resolves the engine's CLI binary on the PATH of its
// environment; a binary it cannot find is the engine's failure.
func newClient(e Engine) (*docker.Client, error) {
	c, err := docker.New(e.CLI, e.Context, e.environ())
	if err != nil {
		return nil, &Error{Verdict: protocol.EngineFailure, Err: err}
	}
	return c, nil
}

// clientFor is the client of e, refused if e's docker config sets a
// proxy, which docker run would copy into the container's environment.
func clientFor(e Engine) (*docker.Client, error) {
	c, err := newClient(e)
	if err != nil {
		return nil, err
	}
	if _, err := docker.Proxies(c.Env()); err != nil {
		return nil, &Error{Verdict: protocol.EngineFailure, Err: err}
	}
	return c, nil
}

// CPUs is the engine's CPU count, `docker info`'s NCPU: how many
// containers it runs at once without queueing them for a CPU.
func (e Engine) CPUs(ctx context.Context) (int, error) {
	c, err := newClient(e)
	if err != nil {
		return 0, err
	}
	return c.CPUs(ctx)
}

// declared is what image declares (docker.Client.Declared), its failure
// given its verdict: a label that is not a valid declaration is the
// sandbox's failure, never read as Starlark; an image the engine cannot
// inspect is the engine's.
func declared(ctx context.Context, c *docker.Client, image string) (docker.Declared, error) {
	d, err := c.Declared(ctx, image)
	if lerr := (*docker.LabelError)(nil); errors.As(err, &lerr) {
		return docker.Declared{}, &Error{Verdict: protocol.SandboxFailure, Err: err}
	}
	if err != nil {
		return docker.Declared{}, engineFailure(ctx, err)
	}
	return d, nil
}

// checkEngine asks the engine whether it answers and has the image. A
// check that a signal or a cancelled caller ended is that interruption,
// not the engine's failure.
func checkEngine(ctx context.Context, c *docker.Client, image string) error {
	qctx, cancel := context.WithTimeout(ctx, docker.InspectTimeout)
	defer cancel()
	where := "the current engine"
	if c.Context() != "" {
		where = "context " + c.Context()
	}
	if _, err := c.ServerVersion(qctx); err != nil {
		return engineFailure(ctx, fmt.Errorf("%s: unreachable: %w", where, err))
	}
	out, err := c.InspectImage(qctx, "{{.Id}}", image)
	if err != nil || strings.TrimSpace(out) != image {
		return engineFailure(ctx, fmt.Errorf("%s: image %s is not present (nothing is pulled): %v", where, image, err))
	}
	return nil
}

// engineFailure is err, a docker query that failed, as the engine's
// failure, unless a signal or a cancelled caller ended it (ctx): then the
// run was interrupted, whatever the query said.
func engineFailure(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return &Error{Verdict: protocol.Interrupted, Err: context.Cause(ctx)}
	}
	return &Error{Verdict: protocol.EngineFailure, Err: err}
}
