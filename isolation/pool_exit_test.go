package isolation

import (
	"context"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
)

// The removal is held after the container exited 0 until the test
// releases it: the line is answered while the container is still there,
// and Close returns only once it is gone. A line written after the
// removal could not come before the release.
func TestPoolAnswersALineWhenItsContainerExits(t *testing.T) {
	t.Parallel()
	p, state := fakePool(t, "held-removal", 1)
	res, err := p.Run(context.Background(), Request{Source: "1+2"}, time.Now())
	assert.NilError(t, err)
	assert.Check(t, is.Equal(res.Verdict, protocol.OK))
	assert.Check(t, res.ContainerExit != nil && *res.ContainerExit == 0)
	assert.Check(t, is.Contains(fakedocker.Containers(state), res.Container), "answered before --rm removed the container")
	assert.NilError(t, fakedocker.Release(state, res.RunID))
	assert.NilError(t, p.Close())
	assert.Check(t, is.Len(fakedocker.Containers(state), 0), "Close waits for the removal")
}

// A container that exits 1 after a valid response is judged as a cold
// run judges it, from docker run's own end.
func TestPoolWaitsForTheClientWhenTheExitIsNotClean(t *testing.T) {
	t.Parallel()
	p, state := fakePool(t, "dies-nonzero", 1)
	res, err := p.Run(context.Background(), Request{Source: "1+2"}, time.Now())
	assert.Check(t, is.Equal(res.Verdict, protocol.SandboxFailure), "%v", err)
	assert.Check(t, is.ErrorContains(err, "container exited 1 (a valid response needs exit 0)"))
	assert.Check(t, res.ContainerExit != nil && *res.ContainerExit == 1)
	assert.NilError(t, p.Close())
	assert.Check(t, is.Len(fakedocker.Containers(state), 0))
}
