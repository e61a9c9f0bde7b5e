package isolation

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/synapse-lang/synapse-isolation/dockerargs"
)

// eventQueryTimeout bounds an events query.
const eventQueryTimeout = 10 * time.Second

// oomKilled asks the daemon whether it recorded an OOM event for this
// run's container. Exit status 137 alone only says SIGKILL; `docker kill`
// produces it too.
func (c *client) oomKilled(runID string, since time.Time) (bool, error) {
	return c.recorded(runID, since, "oom")
}

// recorded asks the daemon whether it recorded the container event (oom,
// start) for this run's container, by its run-id label, so no other
// container, of the same name or not, counts, between since and now.
//
// It runs on its own bounded context: the run's may be cancelled already.
func (c *client) recorded(runID string, since time.Time, event string) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), eventQueryTimeout)
	defer cancel()
	out, err := c.output(ctx, "events",
		"--since", unixArg(since.Add(-time.Second)), "--until", unixArg(time.Now()),
		"--filter", "type=container", "--filter", "label="+dockerargs.LabelRunID+"="+runID,
		"--filter", "event="+event, "--format", "{{.Status}}")
	if err != nil {
		return false, err
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.TrimSpace(line) == event {
			return true, nil
		}
	}
	return false, nil
}

func unixArg(t time.Time) string {
	return fmt.Sprintf("%d.%09d", t.Unix(), t.Nanosecond())
}
