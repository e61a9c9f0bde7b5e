package removal

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/docker"
)

// gcGrace is how long past its deadline a container may still be listed
// before gc treats it as left behind: the runner stops itself about a
// second after the deadline and --rm then removes it; a judge's request
// counts its deadline from the request, after the container's start, and
// its host waits two seconds more.
const gcGrace = 10 * time.Second

// Leftover is a container that gc takes.
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

// Leftovers lists the containers the tool started on c's engine whose
// supervisor is gone (on this host: its owner label names a process that
// no longer runs) or whose deadline has passed at now, or all of them
// with all. It removes nothing (After does).
func Leftovers(ctx context.Context, c *docker.Client, all bool, now time.Time) ([]Leftover, error) {
	return leftovers(ctx, c, all, now, hostProc)
}

func leftovers(ctx context.Context, c *docker.Client, all bool, now time.Time, proc procRoot) ([]Leftover, error) {
	out, err := c.ListLabelled(ctx)
	if err != nil {
		return nil, err
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
		owner, owned := ParseOwner(l.Owner)
		switch {
		case owned && proc.gone(owner):
			l.Why = "owner gone"
		case perr != nil || now.After(l.Deadline.Add(gcGrace)):
			// A missing or unreadable deadline counts as expired: it is
			// ours by label, and nothing of ours runs without a deadline.
			l.Why = "deadline passed"
		case all:
			l.Why = "all"
		default:
			continue
		}
		found = append(found, l)
	}
	return found, nil
}
