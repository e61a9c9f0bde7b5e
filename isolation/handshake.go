package isolation

import (
	"errors"
	"fmt"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/wire"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// handshake waits until the deadline for the runner's hello, decodes it
// strictly and judges it against the plan. Only when it passes is the run
// ready for its request; on anything else the container is refused
// (refuse) and the source never written. bound is the wait as its
// messages name it.
func (a *attempt) handshake(l *launched, deadline time.Time, bound time.Duration) error {
	a.launched = l.at
	line, err := l.awaitHello(deadline, bound)
	if silent := (*noHelloError)(nil); errors.As(err, &silent) && silent.within > 0 {
		// Which deadline passed decides whose it was: the run's own is
		// its timeout; a pool's start bound is the sandbox's.
		silent.own = deadline.Equal(l.plan.Deadline)
		silent.partial = len(l.out.hello()) > 0
	}
	if err != nil {
		return a.refuse(l, err, false)
	}
	a.hello = l.helloAt
	h, err := wire.DecodeHello(line)
	if err != nil {
		return a.refuse(l, &Error{Verdict: SandboxFailure, Err: err}, true)
	}
	a.selfcheck = h.Selfcheck
	v := sight{hello: *h.Selfcheck, memory: l.plan.Limits.Memory, runtime: l.plan.Runtime}
	if l.record != nil {
		// What the runtime hides from the runner, the engine's record
		// shows, read while the sandbox booted: it must be in before
		// the source goes.
		t := time.NewTimer(time.Until(deadline))
		select {
		case <-l.record.done:
			v.record, a.recordErr = l.record.rec, l.record.err
		case <-t.C:
			a.recordErr = fmt.Errorf("the engine's record of container %s: not read within %s", l.plan.Name, bound)
		}
		t.Stop()
		a.record = v.record
		if a.recordErr != nil {
			return a.refuse(l, &Error{Verdict: EngineFailure, Err: fmt.Errorf("%w; the program was never sent", a.recordErr)}, true)
		}
	}
	if err := attestationError(l.plan.Column, v, l.plan.Limits.Config); err != nil {
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
	if silent := (*noHelloError)(nil); errors.As(cause, &silent) && silent.timedOut() {
		if !found {
			a.exit = nil // docker run's status, killed at the deadline, is not a container's
		}
		return &Error{Verdict: Timeout, Err: fmt.Errorf("%w; the program was never sent", cause)}
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

// noHelloError is a hello that never came: the wait ended with the client
// still running (within > 0), or the client ended first (exit).
type noHelloError struct {
	within  time.Duration
	exit    int
	version int  // the protocol version of a runner that answered its closed stdin; 0 if none did
	own     bool // the wait was the run's own deadline, its timeout
	partial bool // part of a hello line came, without its end
}

// timedOut says the run's timeout passed before the sandbox was ready:
// nothing came, or only a hello of this protocol once stdin was closed
// (a container slow to start). A runner that began a line and never ended
// it, or that speaks another protocol, failed, whatever the deadline.
func (e *noHelloError) timedOut() bool {
	return e.within > 0 && e.own && !e.partial && (e.version == 0 || e.version == protocol.Version)
}

func (e *noHelloError) Error() string {
	switch {
	case e.timedOut():
		return fmt.Sprintf("the deadline of %s passed before the sandbox was ready (no hello from the runner yet)", e.within)
	case e.within == 0:
		return fmt.Sprintf("the container exited %d before the runner's hello", e.exit)
	case e.version == protocol.Version:
		return fmt.Sprintf("no hello from the runner within %s (it said hello only after its stdin was closed)", e.within)
	case e.version != 0:
		return fmt.Sprintf("no hello from the runner within %s (its stdin closed, it answered with protocol version %d, want %d)", e.within, e.version, protocol.Version)
	}
	return fmt.Sprintf("no hello from the runner within %s", e.within)
}

// endedAs says how docker run ended, for a message.
func endedAs(code int) string {
	if code < 0 {
		return "was stopped"
	}
	return fmt.Sprintf("exited %d", code)
}
