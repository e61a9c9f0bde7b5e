package isolation

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/capture"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// launched is a `docker run` started with its request not yet sent: at
// once for Run, ahead of time for a warm pool.
type launched struct {
	plan    *runPlan
	client  *client
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	out     *frames    // the runner's stdout: hello, then response
	resp    *firstByte // the response part of out
	stderr  *stderrWatch
	reaper  *reaper // removes the container should this process die first
	parent  context.Context
	runCtx  context.Context
	abort   context.CancelCauseFunc
	done    chan struct{} // closed once docker run was waited for
	waitErr error         // cmd.Wait's error; read after done
	at      time.Time     // when docker run was started
	helloAt time.Time     // when the hello line arrived
	sent    time.Time     // when the request was written

	mu    sync.Mutex
	timer *time.Timer
}

// firstByte is the bounded response capture that also notes when the
// response began to arrive.
type firstByte struct {
	*capture.Buffer
	once sync.Once
	at   time.Time
}

func (f *firstByte) Write(p []byte) (int, error) {
	f.once.Do(func() { f.at = time.Now() })
	return f.Buffer.Write(p)
}

// arrived returns when the first response byte came, zero if none did.
func (f *firstByte) arrived() time.Time {
	f.once.Do(func() {}) // orders the read after the first Write
	return f.at
}

// launch starts `docker run` for plan with its stdin open. Its context
// ends with ctx (a signal, say), or with abort.
func launch(ctx context.Context, c *client, plan *runPlan) (*launched, error) {
	runCtx, abort := context.WithCancelCause(ctx)
	l := &launched{plan: plan, client: c, parent: ctx, runCtx: runCtx, abort: abort, done: make(chan struct{})}
	l.resp = &firstByte{Buffer: capture.New(limits.MaxResponseBytes)}
	l.resp.OnOverflow = func() { abort(errResponseTooLarge) }
	l.out = newFrames(l.resp)
	l.stderr = &stderrWatch{onWarning: func(line string) { abort(&warningError{line: line}) }}
	cmd := exec.CommandContext(runCtx, c.path, plan.Argv[1:]...)
	cmd.Env = c.env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		abort(nil)
		return nil, &Error{Verdict: EngineFailure, Err: fmt.Errorf("stdin pipe: %w", err)}
	}
	cmd.Stdout, cmd.Stderr = l.out, l.stderr
	// Its own process group: a Ctrl-C on the terminal reaches only this
	// process, which then kills the client and removes the container in
	// order, instead of racing docker's own signal proxying.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = waitDelay
	l.cmd, l.stdin = cmd, stdin
	if l.reaper, err = c.startReaper(plan.RunID); err != nil {
		abort(nil)
		return nil, &Error{Verdict: EngineFailure, Err: err}
	}
	l.at = time.Now()
	if err := cmd.Start(); err != nil {
		l.reaper.settle(true)
		abort(nil)
		return nil, &Error{Verdict: EngineFailure, Err: fmt.Errorf("starting %s: %w", c.path, err)}
	}
	l.reaper.watch(cmd.Process.Pid)
	go func() {
		l.waitErr = cmd.Wait()
		close(l.done)
	}()
	return l, nil
}

// send writes the request and closes stdin; the host deadline is armed to
// end at deadline. Only a run whose hello passed gets here.
func (l *launched) send(body []byte, deadline time.Time) {
	l.mu.Lock()
	l.sent = time.Now()
	l.timer = time.AfterFunc(time.Until(deadline), func() { l.abort(errHostDeadline) })
	l.mu.Unlock()
	go func() {
		// One line: the runner answers at the newline, without waiting
		// for EOF to cross docker. A client that died already makes this
		// fail; finish says why.
		_, _ = l.stdin.Write(append(body[:len(body):len(body)], '\n'))
		_ = l.stdin.Close()
	}()
}

// remove removes the run's container daemon-side and confirms it gone
// (client.remove), then tells the reaper: confirmed, it stands down;
// unconfirmed, it goes on trying on its own.
func (l *launched) remove(clientDied time.Time) (found bool, err error) {
	return l.removeWithin(clientDied, maxListErrors)
}

// removeWithin is remove giving up after attempts failed listings.
func (l *launched) removeWithin(clientDied time.Time, attempts int) (found bool, err error) {
	found, err = l.client.remove(l.plan.RunID, clientDied, attempts)
	l.reaper.settle(err == nil)
	return found, err
}

// kill stops the client of a container that will get no request.
func (l *launched) kill() {
	_ = l.stdin.Close()
	l.abort(errors.New("discarded"))
	<-l.done
}

// wait waits for docker run and notes how it ended. It returns the
// client's exit status, -1 when it was killed by a signal.
func (l *launched) wait(a *attempt) (int, error) {
	<-l.done
	a.end = time.Now()
	l.mu.Lock()
	if l.timer != nil {
		l.timer.Stop()
	}
	l.mu.Unlock()
	l.stderr.finish() // a last WARNING line without a newline still aborts
	if l.cmd.ProcessState == nil {
		return -1, &Error{Verdict: EngineFailure, Err: fmt.Errorf("waiting for %s: %w", l.client.path, l.waitErr)}
	}
	a.started = true
	code := l.cmd.ProcessState.ExitCode()
	if code >= 0 {
		a.exit = &code
	}
	return code, nil
}

// finish waits for docker run after its request was sent and decides from
// its end: the cause of an abort first, then the exit status, then
// evidence. It returns the response bytes for a run that exited 0 and was
// not aborted.
func (l *launched) finish(a *attempt) ([]byte, error) {
	defer l.abort(nil)
	code, err := l.wait(a)
	if err != nil {
		return nil, err
	}
	cause := context.Cause(l.runCtx)
	var warning *warningError
	var ended *requestEnded
	switch {
	case l.parent.Err() != nil:
		return nil, &Error{Verdict: Interrupted, Err: context.Cause(l.parent)}
	case errors.As(cause, &ended):
		return nil, &Error{Verdict: Interrupted, Err: ended.cause}
	case errors.Is(cause, errHostDeadline):
		return nil, &Error{Verdict: Timeout, Err: fmt.Errorf("container %s passed the host deadline of %s; it was removed and its output discarded",
			l.plan.Name, l.plan.Limits.Timeout)}
	case errors.As(cause, &warning):
		return nil, warning.refusal()
	case errors.Is(cause, errResponseTooLarge):
		return nil, &Error{Verdict: SandboxFailure, Err: errResponseTooLarge}
	}
	switch code {
	case 0:
		return l.resp.Bytes(), nil
	case 137:
		return nil, l.client.oomOrKill(l.plan.RunID, l.plan.Name, a.start, l.stderr)
	case 125, 126, 127:
		return nil, l.dockerFailed(code)
	case -1:
		return nil, &Error{Verdict: SandboxFailure, Err: fmt.Errorf("docker run was killed: %s", l.cmd.ProcessState)}
	}
	return nil, &Error{Verdict: SandboxFailure, Err: &exitError{code: code, stderr: withStderr(l.stderr)}}
}

// exitError is docker run ending with a status that is neither docker's own
// nor 0: the container's, unless the container outlived its client (a
// transport that died, say), which the removal tells.
type exitError struct {
	code   int
	stderr string
}

func (e *exitError) Error() string {
	return fmt.Sprintf("container exited %d (a valid response needs exit 0)%s", e.code, e.stderr)
}

// dockerFailed is docker's own failure, told by the statuses docker run
// reserves for itself (125: the daemon or the client, 126/127: the
// container's command), in docker's words.
func (l *launched) dockerFailed(code int) error {
	return &Error{Verdict: EngineFailure, Err: fmt.Errorf("docker run exited %d: %s", code, quoteStderr(l.stderr))}
}
