package isolation

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/synapse-lang/synapse-isolation/dockerargs"
)

// Cleanup bounds.
const (
	// cleanupTimeout bounds removal and its verification in all.
	cleanupTimeout = 30 * time.Second
	// settle is how long after the client died a removal must still hold.
	// Killing `docker run` does not cancel a create the daemon is already
	// processing; such a container appears after the first rm, so absence
	// is only trusted once it has lasted this long.
	settle = 500 * time.Millisecond
	// retryEvery spaces the rm/check rounds.
	retryEvery = 100 * time.Millisecond
	// maxListErrors ends the cleanup early when the engine keeps failing to
	// list containers (an unreachable daemon): the removal then stays
	// unconfirmed, which is reported, not waited out.
	maxListErrors = 5
)

// remove deletes the run's container daemon-side and confirms that it is
// gone, by name and by run-id label. Killing the `docker run` client
// removes nothing: the container belongs to the daemon and keeps running,
// and --rm only applies once it exits. So this runs synchronously, on a
// fresh context (the run's own may be cancelled already), before Run
// returns.
func (c *client) remove(name string, clientDied time.Time) error {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	var lastErr error
	errs := 0
	for {
		// rm -f fails for a container that does not exist (yet, or any
		// more); only the listing below decides.
		_, _ = c.output(ctx, "rm", "-f", name)
		present, err := c.present(ctx, name)
		switch {
		case err != nil:
			lastErr, errs = err, errs+1
		case !present && time.Since(clientDied) >= settle:
			return nil
		default:
			errs = 0
		}
		if errs >= maxListErrors {
			return &EngineError{Err: fmt.Errorf("docker rm -f %s: removal not confirmed: %w", name, lastErr)}
		}
		select {
		case <-ctx.Done():
			if lastErr == nil {
				lastErr = fmt.Errorf("container still listed")
			}
			return &EngineError{Err: fmt.Errorf("docker rm -f %s: not confirmed gone after %s: %w", name, cleanupTimeout, lastErr)}
		case <-time.After(retryEvery):
		}
	}
}

// present lists containers, in any state, by exact name and by run-id label.
func (c *client) present(ctx context.Context, name string) (bool, error) {
	for _, filter := range []string{"name=^/?" + name + "$", "label=" + dockerargs.LabelRunID + "=" + name} {
		out, err := c.output(ctx, "ps", "--all", "--quiet", "--no-trunc", "--filter", filter)
		if err != nil {
			return false, err
		}
		if strings.TrimSpace(out) != "" {
			return true, nil
		}
	}
	return false, nil
}
