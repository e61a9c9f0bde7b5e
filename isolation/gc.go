package isolation

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// gcGrace is how long past its deadline a container may still be listed
// before gc treats it as left behind: the runner stops itself about a
// second after the deadline and --rm then removes it; a judge's request
// counts its deadline from the request, after the container's start, and
// its host waits judgeGrace more.
const gcGrace = 10 * time.Second

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
	return gc(ctx, o, now, hostProc)
}

func gc(ctx context.Context, o GCOptions, now time.Time, proc procRoot) ([]Leftover, error) {
	c, err := newClient(o.Engine)
	if err != nil {
		return nil, err
	}
	out, err := c.ListLabelled(ctx)
	if err != nil {
		return nil, &Error{Verdict: EngineFailure, Err: err}
	}
	var found []Leftover
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(strings.TrimRight(line, "\r"), "\t")
		if len(f) != 5 || f[0] == "" {
			continue
		}
		l := Leftover{RunID: f[0], State: f[2], Name: f[3], Owner: f[4]}
		secs, perr := strconv.ParseInt(f[1], 10, 64)
		if perr == nil {
			l.Deadline = time.Unix(secs, 0).UTC()
		}
		owner, owned := parseOwner(l.Owner)
		switch {
		case owned && proc.gone(owner):
			l.Why = "owner gone"
		case perr != nil || now.After(l.Deadline.Add(gcGrace)):
			// A missing or unreadable deadline counts as expired: it is
			// ours by label, and nothing of ours runs without a deadline.
			l.Why = "deadline passed"
		case o.All:
			l.Why = "all"
		default:
			continue
		}
		found = append(found, l)
	}
	if o.DryRun {
		return found, nil
	}
	for i := range found {
		if _, err := removeRun(c, found[i].RunID, time.Time{}, maxListErrors); err != nil {
			return found, fmt.Errorf("gc: %w", err)
		}
		found[i].Removed = true
	}
	return found, nil
}
