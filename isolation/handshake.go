package isolation

import (
	"errors"
	"fmt"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/wire"
)

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
	h, err := wire.DecodeHello(line)
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

// refuse ends a container whose hello did not pass (launched.silenced):
// not a byte of the source reaches it; the client is killed and the
// container removed and confirmed gone. The verdict follows docker first:
// a run docker itself failed (its own exit statuses, or no container in
// the daemon's record for the run id) is an engine failure, whatever the
// runner did or did not say; otherwise the sandbox failed, naming why.
// arrived says a hello line came and was refused.
func (a *attempt) refuse(l *launched, cause error, arrived bool) error {
	l.silenced(cause)
	defer l.abort(nil)
	code, err := a.waited(l)
	if err != nil {
		l.reaper.settle(false) // no exit status: the reaper makes sure
		return err
	}
	err = refusal(l, cause, arrived, code)
	// A client that failed before any hello (an unknown context, an
	// unreachable daemon) most likely reached no engine: one listing
	// decides, and if the engine cannot be listed either, docker's own
	// failure is the verdict, said once, with no container to have an
	// exit status; the run's reaper goes on trying the removal on its own.
	unreached := !arrived && code > 0
	attempts := maxListErrors
	if unreached {
		attempts = 1
	}
	found, rmErr := l.removeWithin(a.end, attempts)
	if rmErr != nil && unreached {
		if err == nil {
			err = &Error{Verdict: EngineFailure, Err: fmt.Errorf("docker run %s before any hello: %s", endedAs(code), l.stderr.quoted())}
		}
		a.exit = nil
		return err
	}
	if code == exitDocker && !a.containerStarted(l, rmErr) {
		a.exit = nil
	}
	switch {
	case rmErr != nil && err != nil:
		return fmt.Errorf("%v; then %w", err, rmErr)
	case rmErr != nil:
		return fmt.Errorf("%v; then %w", cause, rmErr)
	case err != nil:
		return err
	}
	return a.silentRefusal(l, cause, found, code)
}

// refusal is the verdict of a refused run that docker or the caller
// decides (nil if neither does): an interrupt, a WARNING line, a hello
// that came and was refused (cause), docker's own exit status.
func refusal(l *launched, cause error, arrived bool, code int) error {
	var warning *warningError
	switch {
	case l.interrupted() != nil:
		return l.interrupted()
	case errors.As(l.cause(), &warning):
		return warning.refusal()
	case arrived:
		return cause
	case dockerOwn(code):
		return dockerFailed(code, l.stderr)
	}
	return nil
}

// containerStarted decides, for docker's own failure (exitDocker: a
// missing image, an unreachable daemon), whether container_exit may be
// reported: only if the daemon recorded the start of this run's container
// (one created and never started has no exit either); an engine that
// cannot even be listed (rmErr) ran none we know of.
func (a *attempt) containerStarted(l *launched, rmErr error) bool {
	if rmErr != nil {
		return false
	}
	ran, err := l.client.recorded(l.plan.RunID, l.at, "start")
	return err != nil || ran
}

// silentRefusal is the verdict of a run refused without a hello: the
// sandbox failed only if a container ran. The removal found it, or the
// daemon recorded its start.
func (a *attempt) silentRefusal(l *launched, cause error, found bool, code int) error {
	ran := found
	if !ran {
		var err error
		if ran, err = l.client.recorded(l.plan.RunID, l.at, "start"); err != nil {
			return &Error{Verdict: EngineFailure, Err: fmt.Errorf("%v; whether a container started is unknown: %w", cause, err)}
		}
	}
	if !ran {
		a.exit = nil // docker run's status is not a container's
		return &Error{Verdict: EngineFailure, Err: fmt.Errorf("docker started no container (docker run %s): %s", endedAs(code), l.stderr.quoted())}
	}
	return &Error{Verdict: SandboxFailure, Err: fmt.Errorf("%w; the program was never sent", cause)}
}

// endedAs says how docker run ended, for a message.
func endedAs(code int) string {
	if code < 0 {
		return "was stopped"
	}
	return fmt.Sprintf("exited %d", code)
}
