package isolation

import (
	"context"
	"fmt"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/docker"
)

// The removal loop's timings, one set for its two users: the supervisor
// (removeRun) and the reaper (reap).
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
	// maxListErrors ends the supervisor's cleanup early when the engine
	// keeps failing to list containers (an unreachable daemon): the
	// removal then stays unconfirmed, which is reported, not waited out.
	// The reaper, which has nobody to report to, goes on for its rounds.
	maxListErrors = 5
)

// removal is the one loop that removes a run's containers daemon-side and
// decides when their removal is confirmed, for the supervisor (removeRun)
// and for the reaper that outlives it (reap).
//
// Containers are found by the run-id label and removed with `docker rm -f`
// by full ID, never by name: a name docker cannot find is resolved as an
// ID prefix, which could remove another container, and a name given with
// --name may belong to a container this run never created.
//
// A listing that finds nothing is trusted only if it was asked once the
// run's client had been gone for settle (a create it sent may still
// land). Once a container of the run was found and removed, or is known
// to have existed (it wrote to the client: created), no other can come:
// one `docker run` creates one container, so an empty listing after that
// is final. That is every run whose runner said its hello, and a run
// whose container ended by itself is removed by --rm before its client
// returns: its first listing decides, with no wait.
type removal struct {
	c     *docker.Client
	runID string
	// clientGone says since when the run's docker client is gone, and
	// false while it still runs.
	clientGone func() (time.Time, bool)
	// maxErrs ends the loop, unconfirmed, after that many failed listings
	// in a row; 0 never does (the loop then ends at cleanupTimeout).
	maxErrs int
	// created says the run's container is known to have been created.
	created bool
	// removing, if set, is the result of a removal of the run's
	// container already under way (launched.deadlinePassed): awaited
	// first, and if it removed it, found.
	removing <-chan error
}

// run removes until the removal is confirmed, or it is not after
// cleanupTimeout or maxErrs failed listings. found reports whether a
// container of the run was there to remove.
func (r removal) run() (found bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	var lastErr error
	errs := 0
	if r.removing != nil && <-r.removing == nil {
		found = true
	}
	for {
		// A listing sees the engine as it was when it was asked, so its
		// start, not its end, is what must come settle after the client
		// died: a slow listing (a loaded machine, an engine over ssh)
		// can miss a create that lands while it runs.
		asked := time.Now()
		ids, err := r.c.Ours(ctx, r.runID)
		switch {
		case err != nil:
			lastErr, errs = err, errs+1
		case len(ids) > 0:
			errs, found = 0, true
			r.c.Remove(ctx, ids)
			continue
		default:
			errs = 0
			if gone, ok := r.clientGone(); ok && (found || r.created || asked.Sub(gone) >= settle) {
				return found, nil
			}
		}
		if r.maxErrs > 0 && errs >= r.maxErrs {
			return found, &Error{Verdict: EngineFailure, Err: &unconfirmedError{msg: fmt.Sprintf("docker rm -f (run %s): removal not confirmed", r.runID), err: lastErr}}
		}
		select {
		case <-ctx.Done():
			if lastErr == nil {
				lastErr = fmt.Errorf("container still listed")
			}
			return found, &Error{Verdict: EngineFailure, Err: &unconfirmedError{msg: fmt.Sprintf("docker rm -f (run %s): not confirmed gone after %s", r.runID, cleanupTimeout), err: lastErr}}
		case <-time.After(retryEvery):
		}
	}
}

// removeRun deletes the run's container daemon-side and confirms that it is
// gone (removal). Killing the `docker run` client removes nothing: the
// container belongs to the daemon and keeps running, and --rm only applies
// once it exits. So this runs synchronously, on a fresh context (the run's
// own may be cancelled already), before Run returns. The client ended at
// clientDied; it gives up after maxErrs listings in a row fail. A run's
// own removal, which knows more, is launched.removeWithin.
func removeRun(c *docker.Client, runID string, clientDied time.Time, maxErrs int) (found bool, err error) {
	return removal{c: c, runID: runID, maxErrs: maxErrs, clientGone: func() (time.Time, bool) { return clientDied, true }}.run()
}

// unconfirmedError is a removal that could not be confirmed: the container
// may still exist.
type unconfirmedError struct {
	msg string
	err error
}

func (e *unconfirmedError) Error() string { return e.msg + ": " + e.err.Error() }
func (e *unconfirmedError) Unwrap() error { return e.err }
