package removal

import (
	"errors"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
)

// TestRemovalOfAKnownContainer: what the removal loop knows before its
// first listing ends it sooner, never with a container left.
func TestRemovalOfAKnownContainer(t *testing.T) {
	t.Parallel()

	t.Run("created, nothing listed, client just gone: final at once", func(t *testing.T) {
		t.Parallel()
		// The container wrote to its client, so its create landed; --rm
		// removed it before the client returned. No create can follow.
		r, state := removalOn(t, "ok", goneAt(time.Now()), MaxListErrors)
		r.Created = true
		found, err := r.Run()
		assert.NilError(t, err)
		assert.Assert(t, !found)
		assert.DeepEqual(t, verbs(state), []string{"ps"})
	})

	t.Run("created, still listed: removed, then one listing", func(t *testing.T) {
		t.Parallel()
		r, state := removalOn(t, "ok", goneAt(time.Now()), MaxListErrors)
		r.Created = true
		assert.NilError(t, fakedocker.AddContainer(state, "c1", "r1", "0", "running"))
		found, err := r.Run()
		assert.NilError(t, err)
		assert.Assert(t, found)
		assert.DeepEqual(t, verbs(state), []string{"ps", "rm", "ps"})
		assert.Equal(t, len(fakedocker.Containers(state)), 0)
	})

	t.Run("removed already: one listing confirms it", func(t *testing.T) {
		t.Parallel()
		// The deadline's removal (the run's, at its deadline) removed the
		// container listed ahead; the loop confirms, and calls it found.
		r, state := removalOn(t, "ok", goneAt(time.Now()), MaxListErrors)
		removing := make(chan error, 1)
		removing <- nil
		r.Removing = removing
		found, err := r.Run()
		assert.NilError(t, err)
		assert.Assert(t, found)
		assert.DeepEqual(t, verbs(state), []string{"ps"})
	})

	t.Run("the removal ahead failed: the loop finds and removes it", func(t *testing.T) {
		t.Parallel()
		r, state := removalOn(t, "ok", goneAt(time.Now()), MaxListErrors)
		removing := make(chan error, 1)
		removing <- errors.New("docker rm: removal already in progress")
		r.Removing = removing
		assert.NilError(t, fakedocker.AddContainer(state, "c1", "r1", "0", "running"))
		found, err := r.Run()
		assert.NilError(t, err)
		assert.Assert(t, found)
		assert.DeepEqual(t, verbs(state), []string{"ps", "rm", "ps"})
		assert.Equal(t, len(fakedocker.Containers(state)), 0)
	})
}
