package isolation

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// Request is one program to run: source code only.
type Request = protocol.Request

// waitDelay bounds how long Run waits for docker's pipes to close after
// the client was killed.
const waitDelay = 2 * time.Second

// Causes of an early stop. Each abort of a run sets one; the first wins,
// and the verdict is decided from it.
var (
	errHostDeadline     = errors.New("host deadline")
	errResponseTooLarge = fmt.Errorf("response larger than %d bytes", limits.MaxResponseBytes)
)

// requestEnded is the abort cause when a pool request's own context ended
// while its program ran.
type requestEnded struct{ cause error }

func (e *requestEnded) Error() string { return e.cause.Error() }

// warningError is the abort cause when docker printed a WARNING line: it
// does so when it discards a limit it cannot apply.
type warningError struct{ line string }

func (e *warningError) Error() string { return e.line }

func (e *warningError) refusal() error {
	return &Error{Verdict: EngineFailure, Err: fmt.Errorf("refusing the run: docker did not apply the whole policy: %s", e.line)}
}

// Run executes req in a fresh container under the policy and returns one
// verdict. It validates everything before starting any process; on every
// path except a clean exit it removes the run's container and confirms it
// gone before returning. The error is nil exactly for ok and program_error
// results, and otherwise one of this package's typed errors, the same one
// Result.Verdict names.
func Run(ctx context.Context, req Request, o Options) (Result, error) {
	a := &attempt{start: time.Now()}
	err := a.run(ctx, req, o)
	return a.result(err), err
}

// attempt is one run: what it learned on the way, from which the Result
// is built once, at the end.
type attempt struct {
	start time.Time // when Run was called, or the request read (batch)
	end   time.Time // when docker run exited
	// launched, hello, sent and responded time the run: when docker run
	// started, when the hello arrived, when the request was written, when
	// the response began to arrive.
	launched, hello, sent, responded time.Time
	assigned                         time.Time // batch: when the request got its warm container
	elapsed, handshook               time.Duration
	plan                             *runPlan
	started                          bool // the docker client was started and waited for
	sandboxed                        bool // the hello was judged and passed: only then is the request sent
	exit                             *int
	response                         *protocol.Response // a valid response that Run accepted
	usage                            *Usage             // the program's, from a response within its bounds
	// selfcheck is the runner's view of the sandbox from its hello,
	// accepted or not (doctor lists it either way).
	selfcheck *protocol.Selfcheck
}

func (a *attempt) run(ctx context.Context, req Request, o Options) error {
	body, err := encode(req, o.Exec)
	if err != nil {
		return err
	}
	o, err = o.withProfile()
	if err != nil {
		return &Error{Verdict: SandboxFailure, Err: err}
	}
	plan, err := newPlan(o.ownedBySelf(), a.start)
	if err != nil {
		return &Error{Verdict: Rejected, Err: err}
	}
	a.plan = &plan
	c, err := newClient(o.Engine)
	if err != nil {
		return err
	}
	if err := checkProxies(c.env); err != nil {
		return err
	}
	l, err := launch(ctx, c, &plan)
	if err != nil {
		return err
	}
	// The hello must come, and pass, within the run's deadline; only then
	// does the source go in.
	if err := a.handshake(l, plan.Deadline, plan.Limits.Timeout); err != nil {
		return err
	}
	l.send(body, plan.Deadline)
	return a.complete(l)
}

// encode is the one ingress check of a request on the host
// (protocol.CheckSource), for Starlark unless an interpreter is named.
func encode(req Request, exec []string) ([]byte, error) {
	body, err := protocol.EncodeRequest(req, exec == nil)
	if err != nil {
		return nil, &Error{Verdict: Rejected, Err: err}
	}
	return body, nil
}

// complete finishes a run whose hello passed and whose request was sent:
// waits for it, removes its container unless it exited cleanly, and takes
// the response.
func (a *attempt) complete(l *launched) error {
	a.sent = l.sent
	stdout, err := l.finish(a)
	a.responded = l.resp.arrived()
	if !a.started {
		l.reaper.settle(false) // no exit status: the reaper makes sure
		return err
	}
	clean := err == nil && *a.exit == 0
	if clean {
		l.reaper.settle(true) // --rm removed it when docker run returned
	} else {
		found, rmErr := l.remove(a.end)
		if rmErr != nil {
			// A container that may still exist outranks why the run
			// stopped: the verdict is engine failure, the reason kept as text.
			if err != nil {
				return fmt.Errorf("%v; then %w", err, rmErr)
			}
			return rmErr
		}
		var exit *exitError
		if found && errors.As(err, &exit) {
			// docker run --rm returns once its container is gone; one still
			// there when the client ended was not what ended it: the
			// client failed (its transport died, say), not the sandbox.
			return &Error{Verdict: EngineFailure, Err: fmt.Errorf("docker run exited %d while its container still ran; it was removed: %s",
				exit.code, quoteStderr(l.stderr))}
		}
	}
	if err != nil {
		return err
	}
	return a.accept(l.client, stdout)
}

// accept decodes the response of a clean exit and takes it as the
// result, unless it reports a stop that is not the program's own doing.
func (a *attempt) accept(c *client, stdout []byte) error {
	resp, err := protocol.DecodeResponse(stdout)
	if err != nil {
		return &Error{Verdict: SandboxFailure, Err: err}
	}
	a.elapsed = time.Duration(resp.ElapsedMicros) * time.Microsecond
	a.handshook = time.Duration(resp.HandshakeMicros) * time.Microsecond
	cpuStop := resp.Error != nil && resp.Error.Type == protocol.ErrCPUTime
	if cpuStop && a.plan.Limits.CPUTime == 0 {
		return &Error{Verdict: SandboxFailure, Err: errors.New("response: a CPU-time stop, with no CPU-time limit set")}
	}
	if a.usage, err = a.bound(resp.Usage); err != nil {
		return &Error{Verdict: SandboxFailure, Err: err}
	}
	if cpuStop {
		return &Error{Verdict: CPUTimeout, Err: fmt.Errorf("the runner stopped the program: %s", resp.Error.Message)}
	}
	if resp.Error != nil && resp.Error.Type == protocol.ErrOOM {
		// The runner outlived the program and says why, with its evidence:
		// its own guard, or the cgroup's OOM-kill counter.
		return &Error{Verdict: OOM, Err: fmt.Errorf("the program exhausted its %s memory limit: %s", a.plan.Limits.Memory, resp.Error.Message)}
	}
	if resp.Error != nil && resp.Error.Type == protocol.ErrTimeout {
		return &Error{Verdict: Timeout, Err: fmt.Errorf("the runner stopped the program at its deadline of %s: %s",
			a.plan.Limits.Timeout, resp.Error.Message)}
	}
	if resp.Error != nil && resp.Error.Type == protocol.ErrCommand {
		return &Error{Verdict: CommandNotFound, Err: fmt.Errorf("%s in image %s: %s", strings.Join(a.plan.Runner.Exec, " "), a.plan.Image, resp.Error.Message)}
	}
	if resp.Exit != nil && resp.Exit.Signal == "killed" {
		// An exec-mode interpreter killed by SIGKILL: the cgroup's OOM
		// killer picks the largest process, which is the child, not the
		// runner, so the container itself exits 0.
		oom, err := c.oomKilled(a.plan.RunID, a.start)
		switch {
		case err != nil:
			return &Error{Verdict: EngineFailure, Err: fmt.Errorf("the command was killed; checking for an OOM event: %w", err)}
		case oom:
			return &Error{Verdict: OOM, Err: fmt.Errorf("the command was killed at the %s memory limit (daemon oom event)", a.plan.Limits.Memory)}
		}
	}
	a.response = &resp
	return nil
}

// oomOrKill decides an exit 137: OOM only with the daemon's OOM event as
// evidence; any other SIGKILL is a sandbox failure.
func (c *client) oomOrKill(runID, name string, since time.Time, stderr *stderrWatch) error {
	oom, err := c.oomKilled(runID, since)
	switch {
	case err != nil:
		return &Error{Verdict: EngineFailure, Err: fmt.Errorf("container exited 137; checking for an OOM event: %w", err)}
	case oom:
		return &Error{Verdict: OOM, Err: fmt.Errorf("container %s was killed at its memory limit (daemon oom event, exit 137)", name)}
	}
	return &Error{Verdict: SandboxFailure, Err: fmt.Errorf("container was killed (exit 137) without an OOM event%s", withStderr(stderr))}
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
