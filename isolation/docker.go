package isolation

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/synapse-lang/synapse-isolation/dockerargs"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/capture"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/environ"
)

// client is the one owner of the docker CLI on the host: it builds every
// docker command line (the run's own, the queries, the removals and the
// reaper's), and this file is the only one that starts a process. Every
// call targets the engine it was made for.
type client struct {
	path    string   // resolved CLI binary
	context string   // --context, if any
	env     []string // the CLI's environment
}

// newClient resolves the engine's CLI binary on the PATH of its environment.
func newClient(e Engine) (*client, error) {
	env := e.environ()
	bin := e.CLI
	if bin == "" {
		bin = dockerargs.DefaultCLI
	}
	path, err := lookPath(bin, env)
	if err != nil {
		return nil, &Error{Verdict: EngineFailure, Err: err}
	}
	return &client{path: path, context: e.Context, env: env}, nil
}

// environ is the environment the engine's CLI gets, and where the
// profile's cache directory is read from: Env, or this process's.
func (e Engine) environ() []string {
	if e.Env == nil {
		return os.Environ()
	}
	return e.Env
}

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
	// exitDocker: the daemon or the client failed (a missing image, an
	// unreachable daemon); a container may never have been started.
	exitDocker = 125
	// exitCannotInvoke: the container's command could not be run.
	exitCannotInvoke = 126
	// exitNotFound: the container's command was not found.
	exitNotFound = 127
)

// dockerOwn reports whether code is one of docker run's own statuses.
func dockerOwn(code int) bool {
	return code == exitDocker || code == exitCannotInvoke || code == exitNotFound
}

// dockerFailed is docker's own failure, told by its own exit status, in
// docker's words.
func dockerFailed(code int, stderr *stderrWatch) error {
	return &Error{Verdict: EngineFailure, Err: fmt.Errorf("docker run exited %d: %s", code, stderr.quoted())}
}

// waitDelay bounds how long a run waits for docker's pipes to close after
// the client was killed.
const waitDelay = 2 * time.Second

// startRun starts the run's `docker run` (argv, client binary first) with
// its stdin open. Its context ends the client: the whole process group is
// killed.
func (c *client) startRun(ctx context.Context, argv []string, stdout, stderr io.Writer) (*exec.Cmd, io.WriteCloser, error) {
	cmd := exec.CommandContext(ctx, c.path, argv[1:]...)
	cmd.Env = c.env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, fmt.Errorf("stdin pipe: %w", err)
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// Its own process group: a Ctrl-C on the terminal reaches only this
	// process, which then kills the client and removes the container in
	// order, instead of racing docker's own signal proxying.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = waitDelay
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("starting %s: %w", c.path, err)
	}
	return cmd, stdin, nil
}

// startExitStream starts `docker events` following the die events of
// the containers labelled with owner, from since on, one line each:
// exitFormat. Its context ends it.
func (c *client) startExitStream(ctx context.Context, owner string, since time.Time) (*exec.Cmd, io.ReadCloser, error) {
	cmd := exec.CommandContext(ctx, c.path, c.withContext("events", "--since", unixArg(since),
		"--filter", "type=container", "--filter", "event=die", "--filter", "label="+dockerargs.LabelOwner+"="+owner,
		"--format", exitFormat)...)
	cmd.Env = c.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // as the run's client: a Ctrl-C reaches this process only
	cmd.WaitDelay = time.Second
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, fmt.Errorf("events pipe: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("starting %s events: %w", c.path, err)
	}
	return cmd, out, nil
}

// exitFormat prints a die event as its container's run id and exit
// status, separated by a space (events, unlike ps, prints a \t as is).
var exitFormat = `{{index .Actor.Attributes "` + dockerargs.LabelRunID + `"}} {{index .Actor.Attributes "exitCode"}}`

// startReaper starts the reaper of runID on c's engine (reaperArgv), its
// stdin the read end of a pipe whose write end it returns.
func (c *client) startReaper(runID string) (*exec.Cmd, *os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("reaper pipe: %w", err)
	}
	defer r.Close()
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: c.reaperArgv(runID), Env: c.env}
	cmd.Stdin = r
	// Its own session: a signal to this process's group (a Ctrl-C, a
	// kill of the group) does not reach it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, nil, fmt.Errorf("starting the run's reaper: %w", err)
	}
	return cmd, w, nil
}

// reaperArgv is the reaper's command line (reap): reaperArg0, the run
// id, the CLI and its --context.
func (c *client) reaperArgv(runID string) []string {
	return append([]string{reaperArg0, runID, c.path}, c.withContext()...)
}

// maxAux bounds what an auxiliary docker command may print.
const maxAux = 256 << 10

// withContext is args for this client's engine: --context first, if any.
func (c *client) withContext(args ...string) []string {
	if c.context == "" {
		return args
	}
	return append([]string{"--context", c.context}, args...)
}

// output runs `docker [--context C] args...` and returns its stdout,
// bounded. A nonzero exit is an error that quotes docker's stderr.
func (c *client) output(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, c.path, c.withContext(args...)...)
	cmd.Env = c.env
	stdout := capture.New(maxAux)
	stderr := &stderrWatch{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if stdout.Truncated() {
		return "", fmt.Errorf("docker %s: output larger than %d bytes", args[0], maxAux)
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && stderr.text() != "" {
			return "", fmt.Errorf("docker %s: %w: %s", args[0], err, stderr.text())
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

// rmArgs removes containers by full ID, running or not.
func rmArgs(ids ...string) []string { return append([]string{"rm", "-f"}, ids...) }

// ours lists the containers of runID (listRunArgs).
func (c *client) ours(ctx context.Context, runID string) ([]string, error) {
	out, err := c.output(ctx, listRunArgs(runID)...)
	if err != nil {
		return nil, err
	}
	return strings.Fields(out), nil
}

// rm removes containers by full ID. A failure (one being removed by --rm
// already, say) is for the next listing to judge.
func (c *client) rm(ctx context.Context, ids []string) error {
	_, err := c.output(ctx, rmArgs(ids...)...)
	return err
}

// eventQueryTimeout bounds an events query.
const eventQueryTimeout = 10 * time.Second

// recorded asks the daemon whether it recorded the container event (oom,
// start) for this run's container, by its run-id label, so no other
// container, of the same name or not, counts, between since and now.
//
// It runs on its own bounded context: the run's may be cancelled already.
func (c *client) recorded(runID string, since time.Time, event string) (bool, error) {
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

// cliVersion is `docker --version`, which answers without the daemon.
func (c *client) cliVersion(ctx context.Context) (string, error) {
	return c.output(ctx, "--version")
}

// serverVersion is the engine's version: it fails when the daemon does
// not answer.
func (c *client) serverVersion(ctx context.Context) (string, error) {
	return c.output(ctx, "version", "--format", "{{.Server.Version}}")
}

// info is `docker info` as JSON.
func (c *client) info(ctx context.Context) (string, error) {
	return c.output(ctx, "info", "--format", "{{json .}}")
}

// CPUs is the engine's CPU count, `docker info`'s NCPU: how many
// containers it runs at once without queueing them for a CPU.
func (e Engine) CPUs(ctx context.Context) (int, error) {
	c, err := newClient(e)
	if err != nil {
		return 0, err
	}
	out, err := c.output(ctx, "info", "--format", "{{.NCPU}}")
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(out))
}

// inspectImage formats a local image's inspection; nothing is pulled.
func (c *client) inspectImage(ctx context.Context, format, image string) (string, error) {
	return c.output(ctx, "image", "inspect", "--format", format, image)
}

// listLabelled lists every container with the tool's run-id label, one
// line each: run id, deadline, state, names and owner, tab-separated.
func (c *client) listLabelled(ctx context.Context) (string, error) {
	label := func(k string) string { return `{{.Label "` + k + `"}}` }
	return c.output(ctx, "ps", "--all", "--filter", "label="+dockerargs.LabelRunID, "--format",
		label(dockerargs.LabelRunID)+`\t`+label(dockerargs.LabelDeadline)+`\t{{.State}}\t{{.Names}}\t`+label(dockerargs.LabelOwner))
}

// imageLabels is an image's labels as docker prints them in JSON (null
// for none); nothing is pulled.
func (c *client) imageLabels(ctx context.Context, image string) (string, error) {
	qctx, cancel := context.WithTimeout(ctx, inspectTimeout)
	defer cancel()
	return c.inspectImage(qctx, "{{json .Config.Labels}}", image)
}

// inspectTimeout bounds a query of the engine about an image: its labels,
// whether it is present.
const inspectTimeout = 20 * time.Second

// engineFailure is err, a docker query that failed, as the engine's
// failure, unless a signal or a cancelled caller ended it (ctx): then the
// run was interrupted, whatever the query said.
func engineFailure(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return &Error{Verdict: Interrupted, Err: context.Cause(ctx)}
	}
	return &Error{Verdict: EngineFailure, Err: err}
}
