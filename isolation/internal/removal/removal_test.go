package removal

import (
	"errors"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/docker"
	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
)

// verbs are the docker commands the fake saw, in order.
func verbs(state string) []string {
	var out []string
	for _, c := range fakedocker.Calls(state) {
		out = append(out, c[0])
	}
	return out
}

func TestMain(m *testing.M) {
	if code, ok := Reap(os.Args, os.Stdin); ok {
		os.Exit(code) // a reaper that a test started
	}
	fakedocker.Main() // acts as docker and exits when a test runs it as one
	os.Exit(m.Run())
}

// fake is a client whose docker is this test binary in mode, and the
// fake's state directory.
func fake(t *testing.T, mode string) (*docker.Client, string) {
	t.Helper()
	state := t.TempDir()
	self, err := os.Executable()
	assert.NilError(t, err)
	env := append(os.Environ(), fakedocker.EnvMode+"="+mode, fakedocker.EnvState+"="+state,
		// Under -race a binary sleeps 1s at exit by default; the fake is one.
		"GORACE=atexit_sleep_ms=0")
	c, err := docker.New(self, "", env)
	assert.NilError(t, err)
	return c, state
}

// removalOn is a removal of run "r1" through the fake docker in mode.
func removalOn(t *testing.T, mode string, clientGone func() (time.Time, bool), maxErrs int) (Loop, string) {
	t.Helper()
	c, state := fake(t, mode)
	return Loop{Client: c, RunID: "r1", ClientGone: clientGone, MaxErrs: maxErrs}, state
}

// goneAt is a client that ended at when.
func goneAt(when time.Time) func() (time.Time, bool) {
	return func() (time.Time, bool) { return when, true }
}

// TestRemovalStopRules is the one loop's stop rules, which the supervisor
// and the reaper share: found and removed, an empty listing is final;
// nothing found, only a listing asked settle after the client died is;
// while the client runs, nothing is final; failed listings end it
// unconfirmed after maxErrs in a row.
func TestRemovalStopRules(t *testing.T) {
	t.Parallel()

	t.Run("found then gone: final at once", func(t *testing.T) {
		t.Parallel()
		r, state := removalOn(t, "ok", goneAt(time.Now()), MaxListErrors)
		assert.NilError(t, fakedocker.AddContainer(state, "c1", "r1", "0", "running"))
		assert.NilError(t, fakedocker.AddContainer(state, "other", "r2", "0", "running"))
		found, err := r.Run()
		assert.NilError(t, err)
		assert.Assert(t, found)
		// No settle wait once the run's one container was removed.
		assert.DeepEqual(t, verbs(state), []string{"ps", "rm", "ps"})
		assert.DeepEqual(t, fakedocker.Containers(state), []string{"other"})
	})

	t.Run("nothing, client long gone: one listing", func(t *testing.T) {
		t.Parallel()
		r, state := removalOn(t, "ok", goneAt(time.Now().Add(-2*settle)), MaxListErrors)
		found, err := r.Run()
		assert.NilError(t, err)
		assert.Assert(t, !found)
		assert.DeepEqual(t, verbs(state), []string{"ps"})
	})

	t.Run("nothing, client just gone: lists until settle has passed", func(t *testing.T) {
		t.Parallel()
		died := time.Now()
		r, state := removalOn(t, "ok", goneAt(died), MaxListErrors)
		found, err := r.Run()
		assert.NilError(t, err)
		assert.Assert(t, !found)
		// The last listing was asked at least settle after the death, so
		// the loop cannot have ended sooner.
		assert.Assert(t, time.Since(died) >= settle)
		assert.Assert(t, len(verbs(state)) >= 2, "%q", verbs(state))
	})

	t.Run("client still runs: a late create is found", func(t *testing.T) {
		t.Parallel()
		var asked atomic.Int32
		var state string
		var r Loop
		// The client runs for three listings; its container lands after
		// the first, as a create the daemon was still processing.
		r, state = removalOn(t, "ok", func() (time.Time, bool) {
			switch asked.Add(1) {
			case 1:
				assert.Check(t, fakedocker.AddContainer(state, "late", "r1", "0", "created"))
				return time.Time{}, false
			case 2, 3:
				return time.Time{}, false
			}
			return time.Now().Add(-2 * settle), true
		}, MaxListErrors)
		found, err := r.Run()
		assert.NilError(t, err)
		assert.Assert(t, found)
		// Removed at the second listing; the two after it are empty but
		// not final while the client still runs.
		assert.DeepEqual(t, verbs(state), []string{"ps", "ps", "rm", "ps", "ps", "ps"})
		assert.Check(t, is.Len(fakedocker.Containers(state), 0))
	})

	t.Run("listings fail: unconfirmed after maxErrs in a row", func(t *testing.T) {
		t.Parallel()
		r, state := removalOn(t, "unreachable", goneAt(time.Now().Add(-2*settle)), MaxListErrors)
		found, err := r.Run()
		assert.Assert(t, !found)
		var unconfirmed *UnconfirmedError
		assert.Assert(t, errors.As(err, &unconfirmed), "%v", err)
		assert.ErrorContains(t, err, "docker rm -f (run r1): removal not confirmed")
		assert.DeepEqual(t, verbs(state), []string{"ps", "ps", "ps", "ps", "ps"})
	})
}
