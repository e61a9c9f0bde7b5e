package docker

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/synapse-lang/synapse-isolation/dockerargs"
)

// Record is the engine's record of a run's container (docker inspect):
// the host's own view of what a runtime hides from the runner inside.
// gVisor shows the program no swap file and a pids.max of "max", so its
// column proves the swap cap and the host's task limit from here.
type Record struct {
	RunID      string
	Runtime    string
	Memory     int64
	MemorySwap int64
	PidsLimit  int64
}

// recordFormat prints the fields of Record, tab-separated.
var recordFormat = `{{index .Config.Labels "` + dockerargs.LabelRunID + `"}}` +
	"\t{{.HostConfig.Runtime}}\t{{.HostConfig.Memory}}\t{{.HostConfig.MemorySwap}}\t{{.HostConfig.PidsLimit}}"

// Record reads the engine's record of the container named name, which
// must carry runID's label: a name is cosmetic, and another container may
// have it.
func (c *Client) Record(ctx context.Context, name, runID string) (*Record, error) {
	qctx, cancel := context.WithTimeout(ctx, InspectTimeout)
	defer cancel()
	out, err := c.output(qctx, "container", "inspect", "--format", recordFormat, name)
	if err != nil {
		return nil, fmt.Errorf("reading the engine's record of container %s: %w", name, err)
	}
	r, err := parseRecord(out)
	if err != nil {
		return nil, fmt.Errorf("reading the engine's record of container %s: %w", name, err)
	}
	if r.RunID != runID {
		return nil, fmt.Errorf("container %s is not this run's (its run id is %q, want %s)", name, r.RunID, runID)
	}
	return r, nil
}

// parseRecord reads recordFormat's line.
func parseRecord(out string) (*Record, error) {
	f := strings.Split(strings.TrimSuffix(out, "\n"), "\t")
	if len(f) != 5 {
		return nil, fmt.Errorf("want 5 fields, got %q", out)
	}
	var n [3]int64
	for i, s := range f[2:] {
		if s == "<nil>" { // a limit the engine keeps as a null pointer: none
			n[i] = -1
			continue
		}
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("field %d: %q is not a number", i+3, s)
		}
		n[i] = v
	}
	return &Record{RunID: f[0], Runtime: f[1], Memory: n[0], MemorySwap: n[1], PidsLimit: n[2]}, nil
}
