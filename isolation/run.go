package isolation

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// Request is one program to run: source code only.
type Request = protocol.Request

// waitDelay bounds how long Run waits for docker's pipes to close after
// the client was killed.
const waitDelay = 2 * time.Second

// Errors that abort a run from inside its output handling.
var (
	errResponseTooLarge = fmt.Errorf("response larger than %d bytes", limits.MaxResponseBytes)
	errDockerWarning    = errors.New("docker printed a WARNING")
)

// Run executes req in a fresh container under the policy and returns one
// verdict. It validates everything before starting any process; on every
// path except a clean exit it removes the container and confirms it gone
// before returning. The error is nil for ok and program_error results and
// one of this package's typed errors otherwise; Result.Verdict always
// says which.
func Run(ctx context.Context, req Request, o Options) (Result, error) {
	start := time.Now()
	res, err := run(ctx, req, o, start)
	if err != nil {
		f := failed(err, time.Since(start))
		f.Container, f.ContainerExit = res.Container, res.ContainerExit
		res = f
	}
	res.Image, res.Sandboxed = o.Image, res.Container != ""
	return res, err
}

func run(ctx context.Context, req Request, o Options, start time.Time) (Result, error) {
	o = o.withDefaults()
	body, err := protocol.EncodeRequest(req)
	if err != nil {
		return Result{}, &RejectedError{Err: err}
	}
	plan, err := NewPlan(o, start)
	if err != nil {
		return Result{}, &RejectedError{Err: err}
	}
	c, err := newClient(o)
	if err != nil {
		return Result{}, err
	}
	if err := checkProxies(c.env); err != nil {
		return Result{}, err
	}

	deadlineCtx, cancelDeadline := context.WithDeadline(ctx, plan.Deadline)
	defer cancelDeadline()
	runCtx, abort := context.WithCancelCause(deadlineCtx)
	defer abort(nil)

	stdout := &boundedBuffer{limit: limits.MaxResponseBytes, onOverflow: func() { abort(errResponseTooLarge) }}
	stderr := &stderrWatch{onWarning: func() { abort(errDockerWarning) }}
	cmd := exec.CommandContext(runCtx, c.path, plan.Argv[1:]...)
	cmd.Env = c.env
	cmd.Stdin = bytes.NewReader(body)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// Its own process group: a Ctrl-C on the terminal reaches only this
	// process, which then kills the client and removes the container in
	// order, instead of racing docker's own signal proxying.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = waitDelay

	waitErr := cmd.Run()
	ended := time.Now()
	warning := stderr.finish()
	res := Result{Container: plan.Name, DurationMS: ended.Sub(start).Milliseconds()}
	var ee *exec.ExitError
	exited := errors.As(waitErr, &ee) || waitErr == nil
	if exited && cmd.ProcessState != nil && cmd.ProcessState.ExitCode() >= 0 {
		code := cmd.ProcessState.ExitCode()
		res.ContainerExit = &code
	}

	// A failure to start the client at all: nothing reached the daemon.
	if waitErr != nil && cmd.ProcessState == nil {
		return res, &EngineError{Err: fmt.Errorf("starting %s: %w", c.path, waitErr)}
	}

	// Decide from our own reasons to stop first, then the exit status, then evidence.
	verdictErr := classify(ctx, runCtx, cmd, stdout, stderr, warning, plan.Name)
	if verdictErr == nil && res.ContainerExit != nil && *res.ContainerExit == 137 {
		verdictErr = c.oomOrKill(plan.Name, start, stderr)
	}
	clean := verdictErr == nil && res.ContainerExit != nil && *res.ContainerExit == 0
	if !clean {
		if err := c.remove(plan.Name, ended); err != nil {
			// A container that may still exist outranks why the run
			// stopped: the verdict is engine failure, the reason kept as text.
			if verdictErr != nil {
				err = fmt.Errorf("%v; then %w", verdictErr, err)
			}
			return res, err
		}
	}
	if verdictErr != nil {
		return res, verdictErr
	}

	resp, err := protocol.DecodeResponse(stdout.bytes())
	if err != nil {
		return res, &SandboxError{Err: err}
	}
	if resp.Exit != nil && resp.Exit.Signal == "killed" {
		// An exec-mode interpreter killed by SIGKILL: the cgroup's OOM
		// killer picks the largest process, which is the child, not the
		// runner, so the container itself exits 0.
		if oom, err := c.oomKilled(plan.Name, start); err == nil && oom {
			return res, &OOMError{Err: fmt.Errorf("the command was killed at the %s memory limit", limits.FormatMemory(o.Limits.Memory))}
		}
	}
	out := ResultFromResponse(resp, ended.Sub(start))
	out.Container, out.ContainerExit = res.Container, res.ContainerExit
	return out, nil
}

// classify names the failure of a run that did not end cleanly, or
// returns nil when docker exited with a status that needs the response or
// more evidence.
func classify(ctx, runCtx context.Context, cmd *exec.Cmd, stdout *boundedBuffer, stderr *stderrWatch, warning, name string) error {
	cause := context.Cause(runCtx)
	switch {
	case ctx.Err() != nil:
		return &InterruptedError{Err: context.Cause(ctx)}
	case errors.Is(cause, context.DeadlineExceeded):
		return &TimeoutError{Err: fmt.Errorf("container %s passed the host deadline; it was removed and its output discarded", name)}
	case warning != "":
		return &EngineError{Err: fmt.Errorf("refusing the run: docker did not apply the whole policy: %s", warning)}
	case stdout.overflowed():
		return &SandboxError{Err: errResponseTooLarge}
	}
	code := cmd.ProcessState.ExitCode()
	switch code {
	case 0, 137:
		return nil
	case 125, 126, 127:
		return &EngineError{Err: fmt.Errorf("docker run exited %d: %s", code, quoteStderr(stderr))}
	case -1:
		return &SandboxError{Err: fmt.Errorf("docker run was killed: %s", cmd.ProcessState)}
	}
	return &SandboxError{Err: fmt.Errorf("container exited %d (a valid response needs exit 0)%s", code, withStderr(stderr))}
}

// oomOrKill decides an exit 137: OOM only with the daemon's OOM event as
// evidence; any other SIGKILL is a sandbox failure.
func (c *client) oomOrKill(name string, since time.Time, stderr *stderrWatch) error {
	oom, err := c.oomKilled(name, since)
	switch {
	case err != nil:
		return &EngineError{Err: fmt.Errorf("container exited 137; checking for an OOM event: %w", err)}
	case oom:
		return &OOMError{Err: fmt.Errorf("container %s was killed at its memory limit (daemon oom event, exit 137)", name)}
	}
	return &SandboxError{Err: fmt.Errorf("container was killed (exit 137) without an OOM event%s", withStderr(stderr))}
}

// quoteStderr quotes docker's stderr tail on one line: its non-empty
// lines joined by "; ".
func quoteStderr(s *stderrWatch) string {
	var lines []string
	for _, l := range strings.Split(s.text(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return "(no stderr)"
	}
	return strings.Join(lines, "; ")
}

func withStderr(s *stderrWatch) string {
	if s.text() != "" {
		return "; docker: " + quoteStderr(s)
	}
	return ""
}
