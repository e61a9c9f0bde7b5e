package docker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/synapse-lang/synapse-isolation/dockerargs"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/environ"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/capture"
)

// Client runs the docker CLI for one engine. Every call targets the
// engine it was made for.
type Client struct {
	path    string   // resolved CLI binary
	context string   // --context, if any
	env     []string // the CLI's environment
}

// New resolves the engine's CLI binary (cli; empty is docker) on the PATH
// of env, the CLI's environment; context is its --context, if any.
func New(cli, context string, env []string) (*Client, error) {
	if cli == "" {
		cli = dockerargs.DefaultCLI
	}
	path, err := lookPath(cli, env)
	if err != nil {
		return nil, err
	}
	return &Client{path: path, context: context, env: env}, nil
}

// Path is the resolved CLI binary.
func (c *Client) Path() string { return c.path }

// Context is the client's --context, "" for the CLI's current one.
func (c *Client) Context() string { return c.context }

// Env is the CLI's environment.
func (c *Client) Env() []string { return c.env }

// lookPath finds bin on the PATH of env (not of this process), so a
// caller-supplied environment decides which docker runs. Like os/exec, it
// refuses a match found through a relative PATH entry (exec.ErrDot): the
// bare name it yields would be resolved again, against this process's PATH
// and working directory, possibly to another binary.
func lookPath(bin string, env []string) (string, error) {
	if strings.Contains(bin, "/") {
		if fi, err := os.Stat(bin); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return "", fmt.Errorf("docker CLI %q: not an executable file", bin)
		}
		return bin, nil
	}
	for _, dir := range filepath.SplitList(environ.Get(env, "PATH")) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, bin)
		if fi, err := os.Stat(p); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			continue
		}
		if !filepath.IsAbs(p) {
			return "", fmt.Errorf("docker CLI %q: found as %s through a relative PATH entry: %w", bin, p, exec.ErrDot)
		}
		return p, nil
	}
	return "", fmt.Errorf("docker CLI %q: not found in PATH", bin)
}

// Exit statuses `docker run` keeps for itself: any of them is docker's own
// failure, not the container's, told in docker's words on its stderr.
const (
	// ExitDocker: the daemon or the client failed (a missing image, an
	// unreachable daemon); a container may never have been started.
	ExitDocker = 125
	// exitCannotInvoke: the container's command could not be run.
	exitCannotInvoke = 126
	// exitNotFound: the container's command was not found.
	exitNotFound = 127
)

// OwnStatus reports whether code is one of docker run's own statuses.
func OwnStatus(code int) bool {
	return code == ExitDocker || code == exitCannotInvoke || code == exitNotFound
}

// maxAux bounds what an auxiliary docker command may print.
const maxAux = 256 << 10

// withContext is args for this client's engine: --context first, if any.
func (c *Client) withContext(args ...string) []string {
	if c.context == "" {
		return args
	}
	return append([]string{"--context", c.context}, args...)
}

// output runs `docker [--context C] args...` and returns its stdout,
// bounded. A nonzero exit is an error that quotes docker's stderr.
func (c *Client) output(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, c.path, c.withContext(args...)...)
	cmd.Env = c.env
	stdout := capture.New(maxAux)
	stderr := &StderrWatch{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if stdout.Truncated() {
		return "", fmt.Errorf("docker %s: output larger than %d bytes", args[0], maxAux)
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && stderr.Text() != "" {
			return "", fmt.Errorf("docker %s: %w: %s", args[0], err, stderr.Text())
		}
		return "", fmt.Errorf("docker %s: %w", args[0], err)
	}
	return string(stdout.Bytes()), nil
}

// listRunArgs lists, by full ID and in any state, the containers that
// carry runID's label: exactly the ones that run may have created.
func listRunArgs(runID string) []string {
	return []string{"ps", "--all", "--quiet", "--no-trunc", "--filter", "label=" + dockerargs.LabelRunID + "=" + runID}
}

// Ours lists, by full ID and in any state, the containers of runID: the
// ones that carry its label, exactly those its run may have created.
func (c *Client) Ours(ctx context.Context, runID string) ([]string, error) {
	out, err := c.output(ctx, listRunArgs(runID)...)
	if err != nil {
		return nil, err
	}
	return strings.Fields(out), nil
}

// Remove removes containers by full ID, running or not (`docker rm -f`).
// A failure (one being removed by --rm already, say) is for the next
// listing to judge.
func (c *Client) Remove(ctx context.Context, ids []string) error {
	_, err := c.output(ctx, append([]string{"rm", "-f"}, ids...)...)
	return err
}

// eventQueryTimeout bounds an events query.
const eventQueryTimeout = 10 * time.Second

// Recorded asks the daemon whether it recorded the container event (oom,
// start) for this run's container, by its run-id label, so no other
// container, of the same name or not, counts, between since and now.
//
// It runs on its own bounded context: the run's may be cancelled already.
func (c *Client) Recorded(runID string, since time.Time, event string) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), eventQueryTimeout)
	defer cancel()
	out, err := c.output(ctx, "events",
		"--since", unixArg(since.Add(-time.Second)), "--until", unixArg(time.Now()),
		"--filter", "type=container", "--filter", "label="+dockerargs.LabelRunID+"="+runID,
		"--filter", "event="+event, "--format", "{{.Status}}")
	if err != nil {
		return false, err
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.TrimSpace(line) == event {
			return true, nil
		}
	}
	return false, nil
}

func unixArg(t time.Time) string {
	return fmt.Sprintf("%d.%09d", t.Unix(), t.Nanosecond())
}

// CLIVersion is `docker --version`, which answers without the daemon.
func (c *Client) CLIVersion(ctx context.Context) (string, error) {
	return c.output(ctx, "--version")
}

// ServerVersion is the engine's version: it fails when the daemon does
// not answer.
func (c *Client) ServerVersion(ctx context.Context) (string, error) {
	return c.output(ctx, "version", "--format", "{{.Server.Version}}")
}

// Info is `docker info` as JSON.
func (c *Client) Info(ctx context.Context) (string, error) {
	return c.output(ctx, "info", "--format", "{{json .}}")
}

// CPUs is the engine's CPU count, `docker info`'s NCPU.
func (c *Client) CPUs(ctx context.Context) (int, error) {
	out, err := c.output(ctx, "info", "--format", "{{.NCPU}}")
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(out))
}

// InspectImage formats a local image's inspection; nothing is pulled.
func (c *Client) InspectImage(ctx context.Context, format, image string) (string, error) {
	return c.output(ctx, "image", "inspect", "--format", format, image)
}

// ListLabelled lists every container with the tool's run-id label, one
// line each: run id, deadline, state, names and owner, tab-separated.
func (c *Client) ListLabelled(ctx context.Context) (string, error) {
	label := func(k string) string { return `{{.Label "` + k + `"}}` }
	return c.output(ctx, "ps", "--all", "--filter", "label="+dockerargs.LabelRunID, "--format",
		label(dockerargs.LabelRunID)+`\t`+label(dockerargs.LabelDeadline)+`\t{{.State}}\t{{.Names}}\t`+label(dockerargs.LabelOwner))
}

// imageLabels is an image's labels as docker prints them in JSON (null
// for none); nothing is pulled.
func (c *Client) imageLabels(ctx context.Context, image string) (string, error) {
	qctx, cancel := context.WithTimeout(ctx, InspectTimeout)
	defer cancel()
	return c.InspectImage(qctx, "{{json .Config.Labels}}", image)
}

// InspectTimeout bounds a query of the engine about an image or a
// container: its labels, whether it is present, its record.
const InspectTimeout = 20 * time.Second
