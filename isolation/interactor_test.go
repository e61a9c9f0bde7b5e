package isolation

import (
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/supervisor"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// TestInteractorOptions: the interactor waits on the program, so each of
// its tests has the program's whole timeout (the default one when none
// is set) and limits.CheckerTimeout of wall-clock time, within a
// deadline that holds its compile step and every test, and never past
// limits.MaxTimeout.
func TestInteractorOptions(t *testing.T) {
	for _, c := range []struct {
		timeout time.Duration
		tests   int
		wall    time.Duration
	}{
		{0, 3, limits.DefaultTimeout + limits.CheckerTimeout},
		{5 * time.Second, 1, 15 * time.Second},
		{limits.MaxTimeout, 20, limits.MaxTimeout},
	} {
		o := interactorOptions(Options{Image: "sha256:program", Limits: limits.Config{Timeout: c.timeout}}, "sha256:interactor", c.tests)
		assert.Check(t, is.Equal(o.Image, "sha256:interactor"))
		assert.Check(t, is.Equal(o.Limits.TestTimeout, c.wall), "timeout %s", c.timeout)
		assert.Check(t, is.Equal(o.Limits.CPUTime, limits.CheckerTimeout))
		assert.Check(t, is.Equal(o.Limits.Memory, limits.CheckerMemory))
		assert.Check(t, o.Limits.Timeout >= o.Limits.TestTimeout && o.Limits.Timeout <= limits.MaxTimeout, "%+v", o.Limits)
		assert.Check(t, limits.CheckTestTimeout(o.Limits.TestTimeout, o.Limits.Timeout) == nil)
	}
}

// TestCheckInteractor: an interactor is refused as a checker is (its
// source, its image), and so is one with nothing to grade or beside a
// compare mode; each refusal names the interactor.
func TestCheckInteractor(t *testing.T) {
	image := "sha256:" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	good := Request{Tests: []Test{{Name: "a"}}, Grader: &protocol.Interactor{Source: "import sys", Image: image}}
	assert.NilError(t, checkInteractor(good, good.Grader.(*protocol.Interactor)))
	for want, mutate := range map[string]func(*Request){
		"interactor: an interactor grades tests, and there are none":             func(r *Request) { r.Tests = nil },
		`interactor: compare "exact": with an interactor, the interactor grades`: func(r *Request) { r.Compare = "exact" },
		"interactor: no source":             func(r *Request) { r.Grader = &protocol.Interactor{Source: " \n", Image: image} },
		"interactor: image: ":               func(r *Request) { r.Grader = &protocol.Interactor{Source: "x", Image: "python:3"} },
		"interactor: source: invalid UTF-8": func(r *Request) { r.Grader = &protocol.Interactor{Source: "\xff", Image: image} },
	} {
		r := good
		mutate(&r)
		err := checkInteractor(r, r.Grader.(*protocol.Interactor))
		assert.Check(t, is.ErrorContains(err, want))
		assert.Check(t, is.Equal(supervisor.VerdictOf(err), protocol.Rejected))
	}
}
