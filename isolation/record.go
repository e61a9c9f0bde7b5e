package isolation

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/synapse-lang/synapse-isolation/dockerargs"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// containerRecord is the engine's record of a run's container (docker
// inspect): the host's own view of what a runtime hides from the runner
// inside. gVisor shows the program no swap file and a pids.max of "max",
// so its column proves the swap cap and the host's task limit here.
type containerRecord struct {
	RunID      string
	Runtime    string
	Memory     int64
	MemorySwap int64
	PidsLimit  int64
}

// recordFormat prints the fields of containerRecord, tab-separated.
var recordFormat = `{{index .Config.Labels "` + dockerargs.LabelRunID + `"}}` +
	"\t{{.HostConfig.Runtime}}\t{{.HostConfig.Memory}}\t{{.HostConfig.MemorySwap}}\t{{.HostConfig.PidsLimit}}"

// record reads the engine's record of the container named name, which
// must carry runID's label: a name is cosmetic, and another container may
// have it.
func (c *client) record(ctx context.Context, name, runID string) (*containerRecord, error) {
	qctx, cancel := context.WithTimeout(ctx, inspectTimeout)
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
func parseRecord(out string) (*containerRecord, error) {
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
	return &containerRecord{RunID: f[0], Runtime: f[1], Memory: n[0], MemorySwap: n[1], PidsLimit: n[2]}, nil
}

// recordJudge reads the engine's record for one kind of proof of the
// boundary table, as helloJudge reads the hello.
type recordJudge struct {
	kind  string
	judge func(r containerRecord, memory limits.Bytes, runtime string) (seen, wrong string)
}

// recordJudges are the record's judges, in doctor's order.
var recordJudges = []recordJudge{
	{"host-runtime", func(r containerRecord, _ limits.Bytes, runtime string) (string, string) {
		return "Runtime " + r.Runtime, unless(r.Runtime == runtime, fmt.Sprintf("the engine ran the container under %q, not %q", r.Runtime, runtime))
	}},
	{"host-swap", func(r containerRecord, memory limits.Bytes, _ string) (string, string) {
		seen := fmt.Sprintf("Memory %d MemorySwap %d", r.Memory, r.MemorySwap)
		return seen, unless(r.Memory == int64(memory) && r.MemorySwap == int64(memory),
			fmt.Sprintf("the engine's record allows swap or another limit (want Memory and MemorySwap %d)", int64(memory)))
	}},
	{"host-pids", func(r containerRecord, _ limits.Bytes, _ string) (string, string) {
		seen := fmt.Sprintf("PidsLimit %d", r.PidsLimit)
		return seen, unless(r.PidsLimit == limits.GVisorHostPIDs, fmt.Sprintf("the host's task limit is %d, want %d", r.PidsLimit, limits.GVisorHostPIDs))
	}},
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

// recordAhead is the engine's record of a run's container, read while
// the sandbox boots; done is closed once rec or err is final.
type recordAhead struct {
	done chan struct{}
	rec  *containerRecord
	err  error
}

// await returns the record read ahead, or, once deadline passed, that it
// was not read within bound.
func (r *recordAhead) await(deadline time.Time, name string, bound time.Duration) (*containerRecord, error) {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-r.done:
		return r.rec, r.err
	case <-t.C:
		return nil, fmt.Errorf("the engine's record of container %s: not read within %s", name, bound)
	}
}

// readRecordAhead reads the record from recordAfter on. A read that fails
// before the hello is tried again (most likely the container was not yet
// created); the first read once the hello came, or the client ended, is
// final.
func (l *launched) readRecordAhead() *recordAhead {
	r := &recordAhead{done: make(chan struct{})}
	go func() {
		defer close(r.done)
		wait := time.NewTimer(recordAfter)
		defer wait.Stop()
		for {
			select {
			case <-wait.C:
			case <-l.out.ended:
			case <-l.done:
			case <-l.runCtx.Done():
				r.err = fmt.Errorf("reading the engine's record of container %s: %w", l.plan.Name, context.Cause(l.runCtx))
				return
			}
			final := closed(l.out.ended) || closed(l.done)
			r.rec, r.err = l.client.record(l.runCtx, l.plan.Name, l.plan.RunID)
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
