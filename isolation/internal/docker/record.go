package docker

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

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
const recordFormat = `{{index .Config.Labels "` + dockerargs.LabelRunID + `"}}` +
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

// recordAfter is how long after docker run starts the record is first
// read, and recordRetry how often again until the hello: the container
// is created within about 100 ms here, and gVisor's boot takes most of
// the 400 ms before the hello, so the record is read while it boots and
// costs the run nothing.
const (
	recordAfter = 150 * time.Millisecond
	recordRetry = 50 * time.Millisecond
)

// RecordAhead is the engine's record of a run's container, read while
// the sandbox boots; done is closed once rec or err is final.
type RecordAhead struct {
	done chan struct{}
	rec  *Record
	err  error
}

// Await returns the record read ahead, or, once deadline passed, that it
// was not read within bound.
func (r *RecordAhead) Await(deadline time.Time, name string, bound time.Duration) (*Record, error) {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-r.done:
		return r.rec, r.err
	case <-t.C:
		return nil, fmt.Errorf("the engine's record of container %s: not read within %s", name, bound)
	}
}

// ReadRecordAhead reads the record of the container named name, of
// runID's run (Record), from recordAfter after it is called (as docker
// run starts) on. A read that fails while hello and exited are both open
// is tried again (most likely the container was not yet created); the
// first read once the runner's hello came, or the client exited, is
// final. ctx, the run's, ends the reads.
func (c *Client) ReadRecordAhead(ctx context.Context, name, runID string, hello, exited <-chan struct{}) *RecordAhead {
	r := &RecordAhead{done: make(chan struct{})}
	go func() {
		defer close(r.done)
		wait := time.NewTimer(recordAfter)
		defer wait.Stop()
		for {
			select {
			case <-wait.C:
			case <-hello:
			case <-exited:
			case <-ctx.Done():
				r.err = fmt.Errorf("reading the engine's record of container %s: %w", name, context.Cause(ctx))
				return
			}
			final := closed(hello) || closed(exited)
			r.rec, r.err = c.Record(ctx, name, runID)
			if r.err == nil || final {
				return
			}
			wait.Reset(recordRetry)
		}
	}()
	return r
}

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
