package supervisor

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// How a run that sent its request ends: what it learned (Gather), read
// by the run that holds it (Exit, Refuse, Accept, Judged), and the verdict of it
// all (Decide).

// Gather waits for docker run after its request was sent and returns how
// it ended and why the run was stopped early, if it was.
func (l *Launched) Gather() Facts {
	defer l.abort(nil)
	end, err := l.wait()
	f := l.Planned()
	f.waitErr, f.end, f.code = err, end.At, end.Code
	if err != nil {
		return f
	}
	if l.parent.Err() != nil {
		f.interrupted = context.Cause(l.parent)
	}
	cause := l.cause()
	var ended *requestEnded
	var warning *warningError
	switch {
	case errors.As(cause, &ended):
		f.requestEnded = ended.cause
	case errors.Is(cause, errHostDeadline):
		f.hostDeadline = true
	case errors.As(cause, &warning):
		f.warning = warning.line
	case errors.Is(cause, errResponseTooLarge):
		f.tooLarge = true
	}
	if f.code == -1 {
		f.killedBy = l.cmd.ProcessState.String()
	}
	f.stderr = l.stderr.Joined()
	return f
}

// Planned are the run's facts as its plan names them, nothing learned yet.
func (l *Launched) Planned() Facts {
	p := l.Plan
	return Facts{endFacts: endFacts{hello: true}, name: p.Name, image: p.Image, command: strings.Join(p.Runner.Exec, " "), memory: p.Limits.Memory.String(), timeout: p.Limits.Timeout}
}

// Decide is the run's verdict from f (decide), with the daemon's OOM
// evidence asked where a rule needs it (since: when the run began), and
// the response it accepted: nil for none, or for an error.
func (l *Launched) Decide(f Facts, since time.Time) (*protocol.Response, error) {
	err := decide(f)
	if errors.Is(err, errNeedOOMEvidence) {
		f.oom.asked = true
		f.oom.seen, f.oom.err = l.client.Recorded(l.Plan.RunID, since, "oom")
		err = decide(f)
	}
	if err != nil {
		return nil, err
	}
	return f.resp, nil
}

// Exit is how docker run ended, and whether it was waited for.
func (f *Facts) Exit() (ClientEnd, bool) { return ClientEnd{At: f.end, Code: f.code}, f.waitErr == nil }

// Refuse notes why the response of a clean exit was refused.
func (f *Facts) Refuse(err error) { f.respErr = err }

// Accept takes the response of a clean exit, checked.
func (f *Facts) Accept(resp *protocol.Response) { f.resp = resp }

// Judged notes whether the response is a judge's request's or a compiled
// program's, whose verdict its steps decide, accepted or refused.
func (f *Facts) Judged(judged bool) { f.judged = judged }

// RemovalErr is why the container's removal could not be confirmed, nil
// if it was.
func (f *Facts) RemovalErr() error { return f.rmErr }
