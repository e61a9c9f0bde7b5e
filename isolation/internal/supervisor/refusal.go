package supervisor

import (
	"context"
	"errors"
	"fmt"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/docker"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/removal"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// refusalFacts are what a run whose hello did not pass learned once its
// client was killed: why the hello did not pass, how docker run ended and
// what the removal found (endFacts), and the daemon's start evidence.
// refuse gathers them and decideRefusal turns them into one verdict;
// nothing in decideRefusal asks the engine, so every rule is tested
// in-process.
type refusalFacts struct {
	endFacts
	// cause is why the hello did not pass (judgeHello); endFacts.hello: a
	// hello line came, and was refused.
	cause error
	// found: the removal found the container.
	found bool
	// start is the daemon's start event for the run's container, asked
	// only when a rule needs it (errNeedStartEvidence).
	start evidence
}

// timedOut: the hello's wait was the run's own deadline, which passed with
// the sandbox not yet ready (noHelloError.timedOut).
func (f *refusalFacts) timedOut() bool {
	silent := (*noHelloError)(nil)
	return errors.As(f.cause, &silent) && silent.timedOut()
}

// errNeedStartEvidence is decideRefusal's answer when the verdict turns on
// whether the daemon recorded the start of the run's container, not yet
// asked: the run asks and decides again.
var errNeedStartEvidence = errors.New("the verdict needs the daemon's start evidence")

// refusalVerdict is a refused run's verdict: its error, and exit: whether
// docker run's exit status is a container's, one that ran and ended it
// (Refused.withExit keeps it only for a status, not a signal).
type refusalVerdict struct {
	err  error
	exit bool
}

// neverSent is a refusal's cause as the sandbox's failure or timeout: the
// source was never sent.
func neverSent(v protocol.Verdict, cause error) error {
	return &Error{Verdict: v, Err: fmt.Errorf("%w; the program was never sent", cause)}
}

// refusalEnd is the shared rule endRules[i] in the refusal table: its
// error, with docker run's exit status a container's once docker run was
// waited for; an around keeps the rest's.
func refusalEnd(i int) rule[refusalFacts, refusalVerdict] {
	return lift(endRules[i], func(f *refusalFacts) *endFacts { return &f.endFacts },
		func(f *refusalFacts, err error) refusalVerdict {
			return refusalVerdict{err: err, exit: f.waitErr == nil}
		},
		func(rest refusalVerdict, wrap func(error) error) refusalVerdict {
			return refusalVerdict{err: wrap(rest.err), exit: rest.exit}
		})
}

// refusalRules are the refusal table, in order: the first that holds
// decides. How docker run ended comes first: it could not be waited for;
// the removal failed, which is said after the rest; docker's own exit
// status, which is a container's only if the daemon started one. Then
// what docker or the caller decides (an interrupt, a WARNING line, a hello
// that came and was refused, docker's own failure), then a removal that
// failed with nothing else said, then a hello that never came: the run's
// timeout, or the sandbox's failure only if a container ran.
var refusalRules = []rule[refusalFacts, refusalVerdict]{
	refusalEnd(endUnwaited),
	// Said once: no removal error after docker's own, and no container to
	// have an exit status; the run's reaper goes on trying the removal.
	{name: "engine unreached", when: func(f *refusalFacts) bool { return f.unreached() && f.rmErr != nil }, around: func(_ *refusalFacts, rest refusalVerdict) refusalVerdict {
		return refusalVerdict{err: rest.err}
	}},
	refusalEnd(endRemovalFailed),
	// docker's own failure (a missing image, an unreachable daemon) has a
	// container's exit only if the daemon recorded the start of this run's
	// container: one created and never started has none, and an engine
	// that cannot even be listed ran none we know of.
	{name: "docker's own exit, engine unlisted", when: func(f *refusalFacts) bool { return f.code == docker.ExitDocker && f.rmErr != nil }, around: func(_ *refusalFacts, rest refusalVerdict) refusalVerdict {
		return refusalVerdict{err: rest.err}
	}},
	{name: "docker's own exit, start unasked", when: func(f *refusalFacts) bool {
		return f.code == docker.ExitDocker && f.rmErr == nil && !f.start.asked
	}, then: func(*refusalFacts) refusalVerdict {
		return refusalVerdict{err: errNeedStartEvidence}
	}},
	// A start the daemon could not be asked about is taken to have been.
	{name: "docker's own exit, never started", when: func(f *refusalFacts) bool {
		return f.code == docker.ExitDocker && f.start.asked && f.start.err == nil && !f.start.seen
	}, around: func(_ *refusalFacts, rest refusalVerdict) refusalVerdict {
		return refusalVerdict{err: rest.err}
	}},
	refusalEnd(endInterrupted),
	refusalEnd(endPolicyDropped),
	{name: "hello refused", when: func(f *refusalFacts) bool { return f.hello }, then: func(f *refusalFacts) refusalVerdict {
		return refusalVerdict{err: f.cause, exit: true}
	}},
	refusalEnd(endDockerFailed),
	{name: "engine unreached, unsaid", when: func(f *refusalFacts) bool { return f.unreached() && f.rmErr != nil }, then: func(f *refusalFacts) refusalVerdict {
		return refusalVerdict{err: &Error{Verdict: protocol.EngineFailure, Err: fmt.Errorf("docker run %s before any hello: %s", endedAs(f.code), f.stderr)}}
	}},
	// The hello's cause, which removal failed adds its error to.
	{name: "removal failed, unsaid", when: func(f *refusalFacts) bool { return f.rmErr != nil }, then: func(f *refusalFacts) refusalVerdict {
		return refusalVerdict{err: f.cause, exit: true}
	}},
	// docker run's status, killed at the deadline, is a container's only
	// if the removal found one.
	{name: "timed out", when: (*refusalFacts).timedOut, then: func(f *refusalFacts) refusalVerdict {
		return refusalVerdict{err: neverSent(protocol.Timeout, f.cause), exit: f.found}
	}},
	// A hello that never came is the sandbox's failure only if a
	// container ran: the removal found it, or the daemon recorded its
	// start; otherwise docker started none, which is the engine's.
	{name: "container found", when: func(f *refusalFacts) bool { return f.found }, then: func(f *refusalFacts) refusalVerdict {
		return refusalVerdict{err: neverSent(protocol.SandboxFailure, f.cause), exit: true}
	}},
	{name: "start unasked", when: func(f *refusalFacts) bool { return !f.start.asked }, then: func(*refusalFacts) refusalVerdict {
		return refusalVerdict{err: errNeedStartEvidence}
	}},
	{name: "start unknown", when: func(f *refusalFacts) bool { return f.start.err != nil }, then: func(f *refusalFacts) refusalVerdict {
		return refusalVerdict{err: &Error{Verdict: protocol.EngineFailure, Err: fmt.Errorf("%v; whether a container started is unknown: %w", f.cause, f.start.err)}, exit: true}
	}},
	{name: "container started", when: func(f *refusalFacts) bool { return f.start.seen }, then: func(f *refusalFacts) refusalVerdict {
		return refusalVerdict{err: neverSent(protocol.SandboxFailure, f.cause), exit: true}
	}},
	// The table's last word: every refused run has a verdict.
	{name: "no container started", when: func(*refusalFacts) bool { return true }, then: func(f *refusalFacts) refusalVerdict {
		return refusalVerdict{err: &Error{Verdict: protocol.EngineFailure, Err: fmt.Errorf("docker started no container (docker run %s): %s", endedAs(f.code), f.stderr)}}
	}},
}

// decideRefusal is the verdict of a refused run's facts: the first rule
// that holds.
func decideRefusal(f refusalFacts) refusalVerdict {
	v, _ := decideBy(refusalRules, f)
	return v
}

// Refused is how a refused run's client ended: its end, whether it was
// waited for, and whether its exit status is the container's.
type Refused struct {
	End       ClientEnd
	Waited    bool
	Container bool
}

// withExit is r with its exit status the container's when it is one.
func (r Refused) withExit(container bool) Refused {
	r.Container = container && r.End.Code >= 0
	return r
}

// refuse ends a container whose hello did not pass (Launched.silenced):
// not a byte of the source reaches it; the client is killed and the
// container removed and confirmed gone, within one listing for a client
// that most likely reached no engine (refusalFacts.unreached). arrived
// says a hello line came and was refused. The verdict is the refusal
// table's (decideRefusal), with the daemon's start evidence asked where a
// rule needs it.
func refuse(l *Launched, cause error, arrived bool) (Refused, error) {
	l.silenced(cause)
	defer l.abort(nil)
	end, f := l.refusedEnd(cause, arrived)
	if f.waitErr != nil {
		l.reaper.Settle(false) // no exit status: the reaper makes sure
	} else {
		attempts := removal.MaxListErrors
		if f.unreached() {
			attempts = 1
		}
		f.found, f.rmErr = l.removeWithin(end.At, attempts)
	}
	v := decideRefusal(f)
	if errors.Is(v.err, errNeedStartEvidence) {
		f.start.asked = true
		f.start.seen, f.start.err = l.client.Recorded(l.Plan.RunID, l.At, "start")
		v = decideRefusal(f)
	}
	r := Refused{End: end, Waited: f.waitErr == nil}
	return r.withExit(v.exit), v.err
}

// refusedEnd waits for the client of a refused run and returns how it
// ended and the facts that told: why the run was stopped and docker's
// words, read before the removal, as the verdict is of the run as it
// ended.
func (l *Launched) refusedEnd(cause error, arrived bool) (ClientEnd, refusalFacts) {
	end, err := l.wait()
	f := refusalFacts{cause: cause, endFacts: endFacts{hello: arrived, waitErr: err, code: end.Code}}
	if err != nil {
		return end, f
	}
	if l.parent.Err() != nil {
		f.interrupted = context.Cause(l.parent)
	}
	var warning *warningError
	if errors.As(l.cause(), &warning) {
		f.warning = warning.line
	}
	f.stderr = l.stderr.Quoted()
	return end, f
}
