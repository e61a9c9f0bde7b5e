package isolation

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/hello"
)

// Run executes req in a fresh container under the policy and returns one
// verdict. It validates everything before starting any process; on every
// path except a clean exit it removes the run's container and confirms it
// gone before returning. The error is nil exactly for ok and program_error
// results and for a judged request (Result.Tests set, or compile_error),
// whose verdict is its tests'; otherwise it is one of this package's typed
// errors, the same one Result.Verdict names.
func Run(ctx context.Context, req Request, o Options) (Result, error) {
	return runWith(ctx, req, o, planInput{owner: selfLabel()})
}

// runWith is Run with the plan's input: doctor's selfcheck sets more.
func runWith(ctx context.Context, req Request, o Options, in planInput) (Result, error) {
	a := &attempt{start: time.Now(), collect: len(req.Collect) > 0, tests: testNames(req)}
	err := a.run(ctx, req, o, in)
	return a.result(err), err
}

// attempt is one run: what it learned on the way, from which the Result
// is built once, at the end. Its fields are written in this file only;
// what the handshake, the refusal and the judge learn they return.
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
	selfcheck *hello.Selfcheck
	// collect is whether the request named files to return.
	collect bool
	// tests are the names of a judge's request's tests; nil: none.
	tests []string
	// judged is a response's compile step and tests (judgement); nil
	// for a response of neither.
	judged *judgement
	// record is the engine's record of the container where the run's
	// column reads it, and recordErr why it could not be read.
	record    *containerRecord
	recordErr error
}

func (a *attempt) run(ctx context.Context, req Request, o Options, in planInput) error {
	// The request is encoded once, by the rules every interpreter shares,
	// before the engine is asked which one the image declares; the rules
	// of the program's own language after.
	enc, err := encode(req)
	if err != nil {
		return err
	}
	plan, c, err := planOn(ctx, o, in, time.Time{})
	if err != nil {
		return err
	}
	a.plan = &plan
	if err := enc.checkLanguage(plan.Runner); err != nil {
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
	l.send(enc, judgedDeadline(req, plan.Deadline, plan.Limits.Timeout))
	return a.complete(l)
}

// handshake waits for the runner's hello and judges it (judgeHello);
// a container whose hello did not pass is refused (refuse). Only when it
// passes is the run ready for its request.
func (a *attempt) handshake(l *launched, deadline time.Time, bound time.Duration) error {
	seen, cause, arrived := judgeHello(l, deadline, bound)
	a.launched, a.hello, a.selfcheck, a.record, a.recordErr = seen.launched, seen.at, seen.selfcheck, seen.record, seen.recordErr
	if cause == nil {
		a.sandboxed = true
		return nil
	}
	r, err := refuse(l, cause, arrived)
	a.ended(r.end, r.waited, r.container)
	return err
}

// ended notes how docker run ended: when, whether it was waited for, and
// its exit status when that is the container's.
func (a *attempt) ended(end clientEnd, waited, container bool) {
	a.end, a.started = end.at, waited
	if container {
		code := end.code
		a.exit = &code
	}
}

// assign gives the run a warm container, whose hello passed already.
func (a *attempt) assign(w *warm) {
	a.assigned = time.Now()
	a.plan, a.sandboxed, a.selfcheck = w.l.plan, true, w.selfcheck
}

// judgeGrace is how long past the runner's own deadline the host waits
// for a judge's response: the runner's hard stop (a second past its
// deadline) and a second for the response's way out.
const judgeGrace = 2 * time.Second

// complete finishes a run whose hello passed and whose request was sent:
// waits for it, removes its container unless it exited cleanly, and takes
// the response.
func (a *attempt) complete(l *launched) error {
	a.sent = l.sent
	stdout, err := a.finish(l)
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
				exit.code, l.stderr.quoted())}
		}
	}
	if err != nil {
		return err
	}
	return a.accept(l.client, stdout)
}

// completeAtExit takes the response of a warm run whose container exited
// 0 with its response line ended (exitedClean); the pool confirms the
// removal afterwards (Pool.settle).
func (a *attempt) completeAtExit(l *launched, resp []byte) error {
	a.ended(clientEnd{at: time.Now()}, true, true)
	a.sent, a.responded = l.sent, l.resp.arrived()
	return a.accept(l.client, resp)
}

// accept decodes the response of a clean exit and takes it as the
// result, unless it reports a stop that is not the program's own doing.
func (a *attempt) accept(c *client, stdout []byte) error {
	resp, err := protocol.DecodeResponse(stdout)
	if err == nil {
		err = protocol.CheckFiles(resp, a.collect)
	}
	if err != nil {
		return &Error{Verdict: SandboxFailure, Err: err}
	}
	a.elapsed = time.Duration(resp.ElapsedMicros) * time.Microsecond
	a.handshook = time.Duration(resp.HandshakeMicros) * time.Microsecond
	j, isJudged, err := a.judgement(resp)
	if j.compile != nil || isJudged {
		a.judged = &j
	}
	if isJudged {
		if err != nil {
			return err
		}
		if a.usage, err = a.bound(resp.Usage); err != nil {
			return &Error{Verdict: SandboxFailure, Err: err}
		}
		a.response = &resp
		return nil
	}
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
		return &Error{Verdict: Timeout, Err: fmt.Errorf("the runner stopped the program at the deadline of %s: %s",
			a.plan.Limits.Timeout, resp.Error.Message)}
	}
	if resp.Error != nil && resp.Error.Type == protocol.ErrCommand {
		return &Error{Verdict: CommandNotFound, Err: fmt.Errorf("%s in image %s: %s", strings.Join(a.plan.Runner.Exec, " "), a.plan.Image, resp.Error.Message)}
	}
	if resp.Exit != nil && resp.Exit.Signal == "killed" {
		// An exec-mode interpreter killed by SIGKILL: the cgroup's OOM
		// killer picks the largest process, which is the child, not the
		// runner, so the container itself exits 0.
		oom, err := c.recorded(a.plan.RunID, a.start, "oom")
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

// finish waits for docker run after its request was sent and decides from
// its end: the cause of an abort first, then the exit status, then
// evidence. It returns the response bytes for a run that exited 0 and was
// not aborted.
func (a *attempt) finish(l *launched) ([]byte, error) {
	defer l.abort(nil)
	end, err := l.wait()
	a.ended(end, err == nil, err == nil && end.code >= 0)
	if err != nil {
		return nil, err
	}
	code := end.code
	if err := aborted(l); err != nil {
		return nil, err
	}
	switch {
	case code == 0:
		return l.resp.Bytes(), nil
	case code == killedStatus:
		return nil, oomOrKill(l.client, a.plan.RunID, a.plan.Name, a.start, l.stderr)
	case dockerOwn(code):
		return nil, dockerFailed(code, l.stderr)
	case code == -1:
		return nil, &Error{Verdict: SandboxFailure, Err: fmt.Errorf("docker run was killed: %s", l.cmd.ProcessState)}
	}
	return nil, &Error{Verdict: SandboxFailure, Err: &exitError{code: code, stderr: l.stderr.suffix()}}
}
