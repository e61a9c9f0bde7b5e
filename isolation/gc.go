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

// GCOptions selects what GC removes.
type GCOptions struct {
	// All removes every container with the tool's labels, expired or not.
	All bool
	// DryRun lists what would be removed and removes nothing.
	DryRun bool
	// CLI, Context and Env select the engine, as in Options.
	CLI, Context string
	Env          []string
}

// Leftover is a container GC found.
type Leftover struct {
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
	c, err := newClient(Options{CLI: o.CLI, Context: o.Context, Env: o.Env}.withDefaults())
	if err != nil {
		return nil, err
	}
	out, err := c.output(ctx, "ps", "--all", "--filter", "label="+dockerargs.LabelRunID,
		"--format", `{{.Label "`+dockerargs.LabelRunID+`"}}\t{{.Label "`+dockerargs.LabelDeadline+`"}}\t{{.State}}`)
	if err != nil {
		return nil, &EngineError{Err: err}
	}
	var found []Leftover
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 || f[0] == "" {
			continue
		}
		// The run id is the name the run gave its container.
		l := Leftover{Name: f[0], State: f[2]}
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
		if err := c.remove(found[i].Name, time.Time{}); err != nil {
			return found, fmt.Errorf("gc: %w", err)
		}
		found[i].Removed = true
	}
	return found, nil
}
