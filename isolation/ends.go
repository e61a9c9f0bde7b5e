package isolation

import (
	"errors"
	"fmt"
	"time"
)

// aborted is the verdict of a run whose request was sent and that was
// stopped early, nil if it was not.
func aborted(l *launched) error {
	var warning *warningError
	var ended *requestEnded
	cause := l.cause()
	switch {
	case l.interrupted() != nil:
		return l.interrupted()
	case errors.As(cause, &ended):
		return &Error{Verdict: Interrupted, Err: ended.cause}
	case errors.Is(cause, errHostDeadline):
		return &Error{Verdict: Timeout, Err: fmt.Errorf("container %s passed the host deadline of %s; it was removed and its output discarded",
			l.plan.Name, l.plan.Limits.Timeout)}
	case errors.As(cause, &warning):
		return warning.refusal()
	case errors.Is(cause, errResponseTooLarge):
		return &Error{Verdict: SandboxFailure, Err: errResponseTooLarge}
	}
	return nil
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

// killedStatus is docker run's exit status when its container's main
// process was killed (128 + SIGKILL): by the kernel's OOM killer, or by
// anyone else.
const killedStatus = 128 + 9

// oomOrKill decides an exit 137: OOM only with the daemon's OOM event as
// evidence; any other SIGKILL is a sandbox failure.
func oomOrKill(c *client, runID, name string, since time.Time, stderr *stderrWatch) error {
	oom, err := c.recorded(runID, since, "oom")
	switch {
	case err != nil:
		return &Error{Verdict: EngineFailure, Err: fmt.Errorf("container exited 137; checking for an OOM event: %w", err)}
	case oom:
		return &Error{Verdict: OOM, Err: fmt.Errorf("container %s was killed at its memory limit (daemon oom event, exit 137)", name)}
	}
	return &Error{Verdict: SandboxFailure, Err: fmt.Errorf("container was killed (exit 137) without an OOM event%s", stderr.suffix())}
}
