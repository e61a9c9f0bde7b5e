package isolation

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
)

// The tests of a run's end: its container removed and confirmed gone,
// whoever else shares its name, whenever its create lands.

func TestRunTimeoutRemovesContainer(t *testing.T) {
	t.Parallel()
	start := time.Now()
	res, state, err := runFake(t, "hang", func(o *Options) { o.Limits.Timeout = meetTimeout })
	took := time.Since(start)
	assert.Equal(t, res.Verdict, protocol.Timeout, "%v", err)
	assert.ErrorContains(t, err, "passed the host deadline")
	assert.Equal(t, res.Output, "")
	calls := fakedocker.Calls(state)
	assert.Assert(t, slices.ContainsFunc(calls, func(c []string) bool { return c[0] == "rm" && c[2] == res.Container }), "%q", calls)
	// Found and removed, with no settle wait for a create that cannot come
	// (that wait would list again and again): listed a second before the
	// deadline, removed at it and confirmed by one listing; or, where that
	// listing had not answered by the deadline (a loaded machine), listed,
	// removed and confirmed after it. Which one is the machine's doing.
	v := verbs(state)
	assert.Assert(t, slices.Equal(v, []string{"run", "ps", "rm", "ps"}) || slices.Equal(v, []string{"run", "ps", "ps", "rm", "ps"}), "%q", v)
	// Ended at its deadline, not by its runner, which would answer in an
	// hour: the deadline and three docker calls (half a second on a quiet
	// machine) leave 55 s of room.
	assert.Assert(t, took < time.Minute, "took %s", took)
}

func TestRunSharedNameTouchesOnlyItsOwnContainer(t *testing.T) {
	t.Parallel()
	// Another run's container already holds the name: docker refuses this
	// run (exit 125), and its cleanup must leave the other container alone.
	o, state := fake(t, "ok")
	o.Name = "synapse-iso-shared"
	assert.NilError(t, fakedocker.AddContainer(state, o.Name, "0123456789abcdef", "0", "running"))
	res, err := Run(context.Background(), Request{Source: "1"}, o)
	assert.Equal(t, res.Verdict, protocol.EngineFailure, "%v", err)
	assert.ErrorContains(t, err, "is already in use")
	assert.DeepEqual(t, fakedocker.Containers(state), []string{"synapse-iso-shared"})
	for _, c := range fakedocker.Calls(state) {
		assert.Check(t, c[0] != "rm", "cleanup removed something: %q", c)
	}
}

// TestRunCatchesLateCreate: the client is killed at the deadline with its
// create still in flight, its container silent; the create lands as the
// removal's first listing (empty) ends, so only a removal that trusts no
// empty listing until settle has passed finds it. The fake lands it with
// that listing, not a guessed time after it, so the order holds on any
// machine; the deadline (meetTimeout) comes long after the fake started
// and left word of its create.
func TestRunCatchesLateCreate(t *testing.T) {
	t.Parallel()
	res, state, err := runFake(t, "late-create", func(o *Options) { o.Limits.Timeout = meetTimeout })
	assert.Equal(t, res.Verdict, protocol.Timeout, "%v", err)
	assert.ErrorContains(t, err, "passed before the sandbox was ready")
	calls := fakedocker.Calls(state)
	firstPS := slices.IndexFunc(calls, func(c []string) bool { return c[0] == "ps" })
	rm := slices.IndexFunc(calls, func(c []string) bool { return c[0] == "rm" })
	assert.Assert(t, firstPS >= 0 && rm > firstPS,
		"the container created after the first (empty) listing must be found and removed: %q", calls)
	assert.DeepEqual(t, calls[rm], []string{"rm", "-f", res.Container})
	last := calls[len(calls)-1]
	assert.Equal(t, last[0], "ps", "an empty listing after the removal confirms it")
}

// TestRunInterrupted: an interrupt while the program runs (its request
// read, its runner silent) ends the run as interrupted, its container
// removed. The interrupt waits for the request, not for a guess at when
// it comes: one that came before docker run started would find the run
// failing to start instead.
func TestRunInterrupted(t *testing.T) {
	t.Parallel()
	o, state := fake(t, "hang")
	cause := errors.New("received interrupt")
	ctx, cancel := context.WithCancelCause(context.Background())
	ran := make(chan struct{})
	defer close(ran)
	whenever(requestRead(state), ran, func() { cancel(cause) })
	res, err := Run(ctx, Request{Source: "1"}, o)
	assert.Equal(t, res.Verdict, protocol.Interrupted)
	assert.Assert(t, errors.Is(err, cause))
	assert.Assert(t, is.Len(fakedocker.Containers(state), 0))
}

func TestRunUnconfirmedCleanupIsEngineFailure(t *testing.T) {
	t.Parallel()
	o, _ := fake(t, "hang-unreachable")
	// The deadline must pass after the request was sent (meetTimeout).
	o.Limits.Timeout = meetTimeout
	res, err := Run(context.Background(), Request{Source: "1"}, o)
	assert.Equal(t, res.Verdict, protocol.EngineFailure, "%v", err)
	assert.ErrorContains(t, err, "passed the host deadline")
	assert.ErrorContains(t, err, "removal not confirmed: docker ps: exit status 1: Cannot connect to the Docker daemon")
}

// TestRunClientDiesContainerRuns: a client that ends nonzero while its
// container still runs failed itself (a dead transport): engine failure,
// the container removed; a container that exits nonzero on its own stays a
// sandbox failure.
func TestRunClientDiesContainerRuns(t *testing.T) {
	t.Parallel()
	res, state, err := runFake(t, "client-dies")
	assert.Equal(t, res.Verdict, protocol.EngineFailure, "%v", err)
	assert.ErrorContains(t, err, "docker run exited 1 while its container still ran; it was removed: error during connect")
	assert.Assert(t, slices.ContainsFunc(fakedocker.Calls(state), func(c []string) bool { return c[0] == "rm" }))

	res, _, err = runFake(t, "nonzero-valid")
	assert.Equal(t, res.Verdict, protocol.SandboxFailure, "%v", err)
}
