package isolation

import (
	"context"
	"fmt"
	"time"
)

// The removal loop's timings, one set for both of its forms: the
// supervisor's loop (removeRun) and the reaper's script (reaperScript),
// which is rendered from them.
const (
	// cleanupTimeout bounds removal and its verification in all.
	cleanupTimeout = 30 * time.Second
	// settle is how long after the client died a removal must still hold.
	// Killing `docker run` does not cancel a create the daemon is already
	// processing; such a container appears after the first check, so
	// absence is only trusted once it has lasted this long.
	settle = 500 * time.Millisecond
	// retryEvery spaces the list/rm rounds.
	retryEvery = 100 * time.Millisecond
	// maxListErrors ends the cleanup early when the engine keeps failing to
	// list containers (an unreachable daemon): the removal then stays
	// unconfirmed, which is reported, not waited out, and the reaper,
	// which has nobody to report to, goes on for its rounds.
	maxListErrors = 5
)

// removeRun deletes the run's container daemon-side and confirms that it is
// gone. Killing the `docker run` client removes nothing: the container
// belongs to the daemon and keeps running, and --rm only applies once it
// exits. So this runs synchronously, on a fresh context (the run's own may
// be cancelled already), before Run returns.
//
// Containers are found by the run-id label and removed with `docker rm -f`
// by full ID, never by name: a name docker cannot find is resolved as an
// ID prefix, which could remove another container, and a name given with
// --name may belong to a container this run never created.
//
// A listing that finds nothing is trusted only once the client has been
// dead for settle (a create may still land). Once a container of the run
// was found and removed, no other can come: one `docker run` creates one
// container, so an empty listing after that is final. found reports
// whether a container of the run was there to remove. It gives up after
// maxErrs listings in a row fail.
func removeRun(c *client, runID string, clientDied time.Time, maxErrs int) (found bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	var lastErr error
	errs := 0
	for {
		ids, err := c.ours(ctx, runID)
		switch {
		case err != nil:
			lastErr, errs = err, errs+1
		case len(ids) > 0:
			errs, found = 0, true
			c.rm(ctx, ids)
			continue
		case found || time.Since(clientDied) >= settle:
			return found, nil
		default:
			errs = 0
		}
		if errs >= maxErrs {
			return found, &Error{Verdict: EngineFailure, Err: &unconfirmedError{msg: fmt.Sprintf("docker rm -f (run %s): removal not confirmed", runID), err: lastErr}}
		}
		select {
		case <-ctx.Done():
			if lastErr == nil {
				lastErr = fmt.Errorf("container still listed")
			}
			return found, &Error{Verdict: EngineFailure, Err: &unconfirmedError{msg: fmt.Sprintf("docker rm -f (run %s): not confirmed gone after %s", runID, cleanupTimeout), err: lastErr}}
		case <-time.After(retryEvery):
		}
	}
}

// unconfirmedError is a removal that could not be confirmed: the container
// may still exist.
type unconfirmedError struct {
	msg string
	err error
}

func (e *unconfirmedError) Error() string { return e.msg + ": " + e.err.Error() }
func (e *unconfirmedError) Unwrap() error { return e.err }
