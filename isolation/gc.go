package isolation

import (
	"context"
	"fmt"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/removal"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

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
	Owner    string    `json:"owner"`
	State    string    `json:"state"`
	// Why is why it was taken: "owner gone" (its supervisor, on this host,
	// no longer runs), "deadline passed", or "all".
	Why     string `json:"why"`
	Removed bool   `json:"removed"`
}

// GC finds containers the tool started whose supervisor is gone (on this
// host: its owner label names a process that no longer runs) or whose
// deadline has passed (all of them with All), and removes each, confirming
// it is gone. Containers are left behind only by a supervisor that was
// killed outright (SIGKILL), which had no chance to run its own cleanup;
// the deadline alone decides for containers owned on other hosts (a
// remote engine shared by several).
func GC(ctx context.Context, o GCOptions, now time.Time) ([]Leftover, error) {
	c, err := newClient(o.Engine)
	if err != nil {
		return nil, err
	}
	left, err := removal.Leftovers(ctx, c, o.All, now)
	if err != nil {
		return nil, &Error{Verdict: protocol.EngineFailure, Err: err}
	}
	var found []Leftover
	for _, l := range left {
		found = append(found, Leftover(l))
	}
	if o.DryRun {
		return found, nil
	}
	for i := range found {
		if _, err := removal.After(c, found[i].RunID, time.Time{}, removal.MaxListErrors); err != nil {
			return found, fmt.Errorf("gc: %w", &Error{Verdict: protocol.EngineFailure, Err: err})
		}
		found[i].Removed = true
	}
	return found, nil
}
