package isolation

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/synapse-lang/synapse-isolation/dockerargs"
)

// gcGrace is how long past its deadline a container may still be listed
// before gc treats it as left behind: the runner stops itself about a
// second after the deadline and --rm then removes it.
const gcGrace = 5 * time.Second

// GCOptions selects what GC removes, and on which engine.
type GCOptions struct {
	Engine Engine
	// All removes every container with the tool's labels, expired or not.
	All bool
	// DryRun lists what would be removed and removes nothing.
	DryRun bool
}

// Leftover is a container GC found.
type Leftover struct {
	RunID    string    `json:"run_id"`
	Name     string    `json:"name"`
	Deadline time.Time `json:"deadline"`
	State    string    `json:"state"`
	Removed  bool      `json:"removed"`
}

// GC finds containers the tool started whose deadline has passed (all of
// them with All) and removes each, confirming it is gone. Containers are
// left behind only by a supervisor that was killed outright (SIGKILL),
// which had no chance to run its own cleanup.
func GC(ctx context.Context, o GCOptions, now time.Time) ([]Leftover, error) {
	c, err := newClient(o.Engine)
	if err != nil {
		return nil, err
	}
	out, err := c.output(ctx, "ps", "--all", "--filter", "label="+dockerargs.LabelRunID,
		"--format", `{{.Label "`+dockerargs.LabelRunID+`"}}\t{{.Label "`+dockerargs.LabelDeadline+`"}}\t{{.State}}\t{{.Names}}`)
	if err != nil {
		return nil, &EngineError{Err: err}
	}
	var found []Leftover
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 4 || f[0] == "" {
			continue
		}
		l := Leftover{RunID: f[0], State: f[2], Name: f[3]}
		secs, perr := strconv.ParseInt(f[1], 10, 64)
		if perr == nil {
			l.Deadline = time.Unix(secs, 0).UTC()
		}
		// A missing or unreadable deadline counts as expired: it is ours
		// by label, and nothing of ours runs without a deadline.
		if o.All || perr != nil || now.After(l.Deadline.Add(gcGrace)) {
			found = append(found, l)
		}
	}
	if o.DryRun {
		return found, nil
	}
	for i := range found {
		if err := c.remove(found[i].RunID, time.Time{}); err != nil {
			return found, fmt.Errorf("gc: %w", err)
		}
		found[i].Removed = true
	}
	return found, nil
}
