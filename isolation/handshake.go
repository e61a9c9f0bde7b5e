package isolation

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// versionGrace is how long, after a hello wait ended in silence, the host
// waits for an answer to the closed stdin: a runner of protocol v1 waits
// for its request and, given EOF, answers at once, naming its version.
const versionGrace = 500 * time.Millisecond

// noHelloError is a hello that never came: the wait ended with the client
// still running (within > 0), or the client ended first (exit).
type noHelloError struct {
	within  time.Duration
	exit    int
	version int // the protocol version of a runner that answered its closed stdin; 0 if none did
}

func (e *noHelloError) Error() string {
	msg := fmt.Sprintf("the container exited %d before the runner's hello", e.exit)
	if e.within > 0 {
		msg = fmt.Sprintf("no hello from the runner within %s", e.within)
	}
	if e.version != 0 {
		msg += fmt.Sprintf(" (its stdin closed, it answered with protocol version %d, want %d)", e.version, protocol.Version)
	}
	return msg
}

// handshake waits until the deadline for the runner's hello, decodes it
// strictly and judges it against the plan. Only when it passes is the run
// ready for its request; on anything else the container is refused
// (refuse) and the source never written. bound is the wait as its
// messages name it.
func (a *attempt) handshake(l *launched, deadline time.Time, bound time.Duration) error {
	a.launched = l.at
	line, err := l.awaitHello(deadline, bound)
	if err != nil {
		return a.refuse(l, err, false)
	}
	a.hello = l.helloAt
	h, err := protocol.DecodeHello(line)
	if err != nil {
		return a.refuse(l, &Error{Verdict: SandboxFailure, Err: err}, true)
	}
	a.selfcheck = h.Selfcheck
	if err := attestationError(h.Selfcheck, l.plan.Limits); err != nil {
		return a.refuse(l, err, true)
	}
	if err := l.out.begin(); err != nil {
		return a.refuse(l, &Error{Verdict: SandboxFailure, Err: err}, true)
	}
	a.sandboxed = true
	return nil
}

// awaitHello returns the hello line, or why none came: the deadline
// passed, the client ended, or the run was aborted (a WARNING line, a
// signal).
func (l *launched) awaitHello(deadline time.Time, bound time.Duration) ([]byte, error) {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-l.out.ended:
	case <-l.done:
		// The client's output is all copied once it was waited for, so a
		// hello it wrote has ended by now.
		select {
		case <-l.out.ended:
		default:
			return nil, &noHelloError{exit: l.cmd.ProcessState.ExitCode()}
		}
	case <-t.C:
		return nil, &noHelloError{within: bound}
	case <-l.runCtx.Done():
		return nil, context.Cause(l.runCtx)
	}
	l.helloAt = time.Now()
	return l.out.hello(), nil
}

// refuse ends a container whose hello did not pass: its stdin is closed
// with nothing written, so not a byte of the source reaches it; the client
// is killed and the container removed and confirmed gone. The verdict
// follows docker first: a run docker itself failed (its own exit statuses,
// or no container in the daemon's record for the run id) is an engine
// failure, whatever the runner did or did not say; otherwise the sandbox
// failed, naming why. arrived says a hello line came and was refused.
func (a *attempt) refuse(l *launched, cause error, arrived bool) error {
	_ = l.stdin.Close()
	var silent *noHelloError
	if errors.As(cause, &silent) && silent.within > 0 {
		silent.version = l.answeredVersion()
	}
	l.abort(cause)
	defer l.abort(nil)
	code, err := l.wait(a)
	if err != nil {
		l.reaper.settle(false) // no exit status: the reaper makes sure
		return err
	}
	var warning *warningError
	switch {
	case l.parent.Err() != nil:
		err = &Error{Verdict: Interrupted, Err: context.Cause(l.parent)}
	case errors.As(context.Cause(l.runCtx), &warning):
		err = warning.refusal()
	case arrived:
		err = cause
	case code == 125 || code == 126 || code == 127:
		err = l.dockerFailed(code)
	}
	// A client that failed before any hello (an unknown context, an
	// unreachable daemon) most likely reached no engine: one listing
	// decides, and if the engine cannot be listed either, docker's own
	// failure is the verdict, said once, with no container to have an
	// exit status; the run's reaper goes on trying the removal on its own.
	attempts := maxListErrors
	if !arrived && code > 0 {
		attempts = 1
	}
	found, rmErr := l.removeWithin(a.end, attempts)
	if rmErr != nil && !arrived && code > 0 {
		if err == nil {
			err = &Error{Verdict: EngineFailure, Err: fmt.Errorf("docker run %s before any hello: %s", clientEnd(code), quoteStderr(l.stderr))}
		}
		a.exit = nil
		return err
	}
	if code == 125 {
		// docker's own failure (a missing image, an unreachable daemon):
		// container_exit is null unless the daemon recorded the start of
		// this run's container (one created and never started has no exit
		// either); an engine that cannot even be listed ran none we know of.
		if rmErr != nil {
			a.exit = nil
		} else if ran, qerr := l.client.recorded(l.plan.RunID, l.at, "start"); qerr == nil && !ran {
			a.exit = nil
		}
	}
	switch {
	case rmErr != nil && err != nil:
		return fmt.Errorf("%v; then %w", err, rmErr)
	case rmErr != nil:
		return fmt.Errorf("%v; then %w", cause, rmErr)
	case err != nil:
		return err
	}
	// No hello: the sandbox failed only if a container ran. The removal
	// found it, or the daemon recorded its start.
	ran := found
	if !ran {
		if ran, err = l.client.recorded(l.plan.RunID, l.at, "start"); err != nil {
			return &Error{Verdict: EngineFailure, Err: fmt.Errorf("%v; whether a container started is unknown: %w", cause, err)}
		}
	}
	if !ran {
		a.exit = nil // docker run's status is not a container's
		return &Error{Verdict: EngineFailure, Err: fmt.Errorf("docker started no container (docker run %s): %s", clientEnd(code), quoteStderr(l.stderr))}
	}
	return &Error{Verdict: SandboxFailure, Err: fmt.Errorf("%w; the program was never sent", cause)}
}

// answeredVersion waits briefly for an answer to the closed stdin and
// returns the protocol version it names, 0 if none came.
func (l *launched) answeredVersion() int {
	t := time.NewTimer(versionGrace)
	defer t.Stop()
	select {
	case <-l.out.ended:
	case <-l.done:
	case <-t.C:
	}
	select {
	case <-l.out.ended:
		if v, ok := protocol.PeekVersion(l.out.hello()); ok {
			return v
		}
	default:
	}
	return 0
}

func clientEnd(code int) string {
	if code < 0 {
		return "was stopped"
	}
	return fmt.Sprintf("exited %d", code)
}
