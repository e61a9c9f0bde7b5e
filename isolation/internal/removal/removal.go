// Package removal removes a run's containers daemon-side and confirms
// them gone: the one loop (Loop) that the supervisor runs after any
// unclean end and that a run's reaper, a process of its own, runs when the
// supervisor died first (Reap, StartReaper); and, for gc, the containers
// left behind (Leftovers), found by the tool's labels and the owner label
// that names the supervisor process (Owner).
//
// Killing `docker run` removes nothing: the container belongs to the
// daemon and keeps running, and --rm only applies once it exits. So
// removal is explicit, by `docker rm -f` on the run's containers' full
// IDs, never by name, and confirmed by a listing that no longer finds
// them. Its errors are plain or *UnconfirmedError; the supervisor decides
// their verdict.
package removal

import (
	"context"
	"fmt"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/docker"
)

// The removal loop's timings, one set for its two users: the supervisor
// and the reaper (reap).
const (
	// CleanupTimeout bounds removal and its verification in all.
	CleanupTimeout = 30 * time.Second
	// settle is how long after the client died a removal must still hold.
	// Killing `docker run` does not cancel a create the daemon is already
	// processing; such a container appears after the first check, so
	// absence is only trusted once it has lasted this long.
	settle = 500 * time.Millisecond
	// retryEvery spaces the list/rm rounds.
	retryEvery = 100 * time.Millisecond
	// MaxListErrors ends the supervisor's cleanup early when the engine
	// keeps failing to list containers (an unreachable daemon): the
	// removal then stays unconfirmed, which is reported, not waited out.
	// The reaper, which has nobody to report to, goes on for its rounds.
	MaxListErrors = 5
)

// Loop is the one loop that removes a run's containers daemon-side and
// decides when their removal is confirmed, for the supervisor and for the
// reaper that outlives it (reap).
//
// Containers are found by the run-id label and removed with `docker rm -f`
// by full ID, never by name: a name docker cannot find is resolved as an
// ID prefix, which could remove another container, and a name given with
// --name may belong to a container this run never created.
//
// A listing that finds nothing is trusted only if it was asked once the
// run's client had been gone for settle (a create it sent may still
// land). Once a container of the run was found and removed, or is known
// to have existed (it wrote to the client: Created), no other can come:
// one `docker run` creates one container, so an empty listing after that
// is final. That is every run whose runner said its hello, and a run
// whose container ended by itself is removed by --rm before its client
// returns: its first listing decides, with no wait.
type Loop struct {
	Client *docker.Client
	RunID  string
	// ClientGone says since when the run's docker client is gone, and
	// false while it still runs.
	ClientGone func() (time.Time, bool)
	// MaxErrs ends the loop, unconfirmed, after that many failed listings
	// in a row; 0 never does (the loop then ends at CleanupTimeout).
	MaxErrs int
	// Created says the run's container is known to have been created.
	Created bool
	// Removing, if set, is the result of a removal of the run's container
	// already under way (at the run's deadline): awaited first, and if it
	// removed it, found.
	Removing <-chan error
}

// Run removes until the removal is confirmed, or it is not after
// CleanupTimeout or MaxErrs failed listings (an *UnconfirmedError). found
// reports whether a container of the run was there to remove. It runs on
// a fresh context of its own: the run's may be cancelled already.
func (r Loop) Run() (found bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), CleanupTimeout)
	defer cancel()
	var lastErr error
	errs := 0
	if r.Removing != nil && <-r.Removing == nil {
		found = true
	}
	for {
		// A listing sees the engine as it was when it was asked, so its
		// start, not its end, is what must come settle after the client
		// died: a slow listing (a loaded machine, an engine over ssh)
		// can miss a create that lands while it runs.
		asked := time.Now()
		ids, err := r.Client.Ours(ctx, r.RunID)
		switch {
		case err != nil:
			lastErr, errs = err, errs+1
		case len(ids) > 0:
			errs, found = 0, true
			r.Client.Remove(ctx, ids)
			continue
		default:
			errs = 0
			if gone, ok := r.ClientGone(); ok && (found || r.Created || asked.Sub(gone) >= settle) {
				return found, nil
			}
		}
		if r.MaxErrs > 0 && errs >= r.MaxErrs {
			return found, &UnconfirmedError{msg: fmt.Sprintf("docker rm -f (run %s): removal not confirmed", r.RunID), err: lastErr}
		}
		select {
		case <-ctx.Done():
			if lastErr == nil {
				lastErr = fmt.Errorf("container still listed")
			}
			return found, &UnconfirmedError{msg: fmt.Sprintf("docker rm -f (run %s): not confirmed gone after %s", r.RunID, CleanupTimeout), err: lastErr}
		case <-time.After(retryEvery):
		}
	}
}

// After removes runID's containers on c's engine, whose client ended at
// clientDied, and confirms them gone (Loop), giving up after maxErrs
// failed listings in a row. A run's own removal, which knows more of its
// container, sets up its Loop itself.
func After(c *docker.Client, runID string, clientDied time.Time, maxErrs int) (found bool, err error) {
	return Loop{Client: c, RunID: runID, MaxErrs: maxErrs, ClientGone: func() (time.Time, bool) { return clientDied, true }}.Run()
}

// UnconfirmedError is a removal that could not be confirmed: the container
// may still exist.
type UnconfirmedError struct {
	msg string
	err error
}

func (e *UnconfirmedError) Error() string { return e.msg + ": " + e.err.Error() }

// Unwrap returns why the removal could not be confirmed.
func (e *UnconfirmedError) Unwrap() error { return e.err }
