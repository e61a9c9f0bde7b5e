package supervisor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/attest"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/docker"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/hello"
)

// Seen is what a container's handshake learned, whether its hello
// passed or not.
type Seen struct {
	Launched  time.Time        // when docker run started
	At        time.Time        // when the hello line arrived; zero if none did
	Selfcheck *hello.Selfcheck // the runner's view, whenever its hello could be decoded (doctor lists it either way)
	Record    *docker.Record   // the engine's record, where the run's column reads it
	RecordErr error            // why the record could not be read
}

// judgeHello waits until the deadline for the runner's hello, decodes it
// strictly and judges it against the plan. It returns what it saw and,
// when the hello did not pass, why (cause), and whether a hello line came
// (arrived). bound is the wait as its messages name it.
func judgeHello(l *Launched, deadline time.Time, bound time.Duration) (seen Seen, cause error, arrived bool) {
	seen.Launched = l.At
	line, err := l.awaitHello(deadline, bound)
	if err != nil {
		return seen, err, false
	}
	seen.At = l.helloAt
	h, err := protocol.DecodeHello(line)
	if err != nil {
		return seen, &Error{Verdict: protocol.SandboxFailure, Err: err}, true
	}
	seen.Selfcheck = h.Selfcheck
	v := attest.Sight{Hello: *h.Selfcheck, Memory: l.Plan.Limits.Memory, Runtime: l.Plan.Runtime}
	if l.record != nil {
		// What the runtime hides from the runner, the engine's record
		// shows, read while the sandbox booted: it must be in before
		// the source goes.
		seen.Record, seen.RecordErr = l.record.Await(deadline, l.Plan.Name, bound)
		if seen.RecordErr != nil {
			return seen, &Error{Verdict: protocol.EngineFailure, Err: fmt.Errorf("%w; the program was never sent", seen.RecordErr)}, true
		}
		v.Record = seen.Record
	}
	if err := attest.Refusal(l.Plan.Column, v, l.Plan.Limits.CPUTime > 0); err != nil {
		return seen, &Error{Verdict: protocol.SandboxFailure, Err: err}, true
	}
	if err := l.out.Begin(); err != nil {
		return seen, &Error{Verdict: protocol.SandboxFailure, Err: err}, true
	}
	return seen, nil, false
}

// Handshake waits for the runner's hello and judges it (judgeHello); a
// container whose hello did not pass is refused (refuse), and its Refused
// says how its client ended, the error the run's verdict. Only a nil
// error lets the request be sent.
func (l *Launched) Handshake(deadline time.Time, bound time.Duration) (Seen, *Refused, error) {
	seen, cause, arrived := judgeHello(l, deadline, bound)
	if cause == nil {
		return seen, nil, nil
	}
	r, err := refuse(l, cause, arrived)
	return seen, &r, err
}

// versionGrace is how long, after a hello wait ended in silence, the host
// waits for an answer to the closed stdin: a runner of protocol v1 waits
// for its request and, given EOF, answers at once, naming its version.
const versionGrace = 500 * time.Millisecond

// awaitHello returns the hello line, or why none came: the deadline
// passed, the client ended, or the run was aborted (a WARNING line, a
// signal).
func (l *Launched) awaitHello(deadline time.Time, bound time.Duration) ([]byte, error) {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-l.out.Ended():
	case <-l.done:
		// The client's output is all copied once it was waited for, so a
		// hello it wrote has ended by now.
		select {
		case <-l.out.Ended():
		default:
			return nil, &noHelloError{exit: l.cmd.ProcessState.ExitCode()}
		}
	case <-t.C:
		// Which deadline passed decides whose it was: the run's own is its
		// timeout; a pool's start bound is the sandbox's. Part of a line
		// is noted before the stdin is closed and a runner that stayed
		// silent is given versionGrace to name its protocol version.
		partial := len(l.out.Hello()) > 0
		_ = l.stdin.Close()
		return nil, &noHelloError{within: bound, own: deadline.Equal(l.Plan.Deadline), partial: partial, version: l.answeredVersion()}
	case <-l.runCtx.Done():
		return nil, context.Cause(l.runCtx)
	}
	l.helloAt = time.Now()
	return l.out.Hello(), nil
}

// silenced ends a run whose hello did not pass: its stdin is closed with
// nothing written, so not a byte of the source reaches it, and the client
// is killed with cause.
func (l *Launched) silenced(cause error) {
	_ = l.stdin.Close()
	l.abort(cause)
}

// answeredVersion waits briefly for an answer to the closed stdin and
// returns the protocol version it names, 0 if none came.
func (l *Launched) answeredVersion() int {
	t := time.NewTimer(versionGrace)
	defer t.Stop()
	select {
	case <-l.out.Ended():
	case <-l.done:
	case <-t.C:
	}
	select {
	case <-l.out.Ended():
		if v, ok := protocol.PeekVersion(l.out.Hello()); ok {
			return v
		}
	default:
	}
	return 0
}

// noHelloError is a hello that never came: the wait ended with the client
// still running (within > 0), or the client ended first (exit). It is
// made once, whole (Launched.awaitHello).
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

// HelloTimedOut says err is a hello that never came within the run's own
// deadline, the sandbox not yet ready (noHelloError.timedOut).
func HelloTimedOut(err error) bool {
	silent := (*noHelloError)(nil)
	return errors.As(err, &silent) && silent.timedOut()
}
