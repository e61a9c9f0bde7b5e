package isolation

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/synapse-lang/synapse-isolation/dockerargs"
)

// oomQueryTimeout bounds the events query.
const oomQueryTimeout = 10 * time.Second

// oomKilled asks the daemon whether it recorded an OOM event for this
// run's container (by its run-id label, so no other container, of the same
// name or not, counts) between since and now. Exit status 137 alone only says
// SIGKILL; `docker kill` produces it too.
//
// It runs on its own bounded context: the run's may be cancelled already.
func (c *client) oomKilled(runID string, since time.Time) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), oomQueryTimeout)
	defer cancel()
	out, err := c.output(ctx, "events",
		"--since", unixArg(since.Add(-time.Second)), "--until", unixArg(time.Now()),
		"--filter", "type=container", "--filter", "label="+dockerargs.LabelRunID+"="+runID,
		"--filter", "event=oom", "--format", "{{.Status}}")
	if err != nil {
		return false, err
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.TrimSpace(line) == "oom" {
			return true, nil
		}
	}
	return false, nil
}

func unixArg(t time.Time) string {
	return fmt.Sprintf("%d.%09d", t.Unix(), t.Nanosecond())
}
