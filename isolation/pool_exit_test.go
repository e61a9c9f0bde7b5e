package isolation

import (
	"context"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

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
	assert.Check(t, is.Equal(res.Verdict, OK))
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
	assert.Check(t, is.Equal(res.Verdict, SandboxFailure), "%v", err)
	assert.Check(t, is.ErrorContains(err, "container exited 1 (a valid response needs exit 0)"))
	assert.Check(t, res.ContainerExit != nil && *res.ContainerExit == 1)
	assert.NilError(t, p.Close())
	assert.Check(t, is.Len(fakedocker.Containers(state), 0))
}

func TestExitWatchHandsEachRunItsStatus(t *testing.T) {
	w := &exitWatch{waiting: map[string]chan int{}}
	r1, r2, r3 := w.expect("r1"), w.expect("r2"), w.expect("r3")
	w.forget("r3")
	w.follow(strings.NewReader("r1 0\nnot a line\nother 0\nr2 137\nr3 0\nr1 1\n" + strings.Repeat("x", 2*maxExitLine) + "\nr9 0\n"))
	assert.Check(t, is.Equal(<-r1, 0))
	assert.Check(t, is.Equal(<-r2, 137))
	assert.Check(t, is.Len(r1, 0), "a run gets one status")
	assert.Check(t, is.Len(r3, 0), "a forgotten run gets none")
	assert.Check(t, is.Len(w.waiting, 0))
}
