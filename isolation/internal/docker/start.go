package docker

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/synapse-lang/synapse-isolation/dockerargs"
)

// waitDelay bounds how long a run waits for docker's pipes to close after
// the client was killed.
const waitDelay = 2 * time.Second

// StartRun starts the run's `docker run` (argv, client binary first) with
// its stdin open. Its context ends the client: the whole process group is
// killed.
func (c *Client) StartRun(ctx context.Context, argv []string, stdout, stderr io.Writer) (*exec.Cmd, io.WriteCloser, error) {
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
func (c *Client) startExitStream(ctx context.Context, owner string, since time.Time) (*exec.Cmd, io.ReadCloser, error) {
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
const exitFormat = `{{index .Actor.Attributes "` + dockerargs.LabelRunID + `"}} {{index .Actor.Attributes "exitCode"}}`

// StartReaper starts the reaper of runID on c's engine: this process's
// own executable again (/proc/self/exe, there even if the file was
// replaced since), under arg0, with reaperArgv's arguments, its stdin the
// read end of a pipe whose write end it returns.
func (c *Client) StartReaper(arg0, runID string) (*exec.Cmd, *os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("reaper pipe: %w", err)
	}
	defer r.Close()
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: c.reaperArgv(arg0, runID), Env: c.env}
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

// reaperArgv is the reaper's command line: arg0, the run id, the CLI and
// its --context; ReaperClient reads it back.
func (c *Client) reaperArgv(arg0, runID string) []string {
	return append([]string{arg0, runID, c.path}, c.withContext()...)
}

// ReaperClient reads a reaper's arguments after its arg0 (reaperArgv):
// the run id and the client of the run's engine, whose CLI gets env. ok is
// false for anything else.
func ReaperClient(args, env []string) (runID string, c *Client, ok bool) {
	if len(args) != 2 && (len(args) != 4 || args[2] != "--context") {
		return "", nil, false
	}
	c = &Client{path: args[1], env: env}
	if len(args) == 4 {
		c.context = args[3]
	}
	return args[0], c, true
}
