package isolation

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// uncached is o with an image ID of its own, whose declared interpreter no
// other test has read, so the engine is asked for it.
func uncached(t *testing.T, o *Options, digit string) {
	o.Image = "sha256:" + strings.Repeat(digit, 64)
	// A cache directory of its own: no file holds the image's label, nor
	// one this test kept in an earlier round (go test -count=3).
	o.Engine.Env = append(o.Engine.Env, "XDG_CACHE_HOME="+t.TempDir())
}

// TestSlowLabelReadTakesNothingFromTheTimeout: the deadline counts from
// once the image was asked, so an engine slow to answer (6 s here) leaves
// a 5 s run its whole timeout: ok, not a timeout before the hello. A
// deadline counted from before the label read would pass before docker
// run started; counted after it, it leaves the fake's hello 25 times what
// it takes on a quiet machine (meetTimeout).
func TestSlowLabelReadTakesNothingFromTheTimeout(t *testing.T) {
	t.Parallel()
	res, _, err := runFake(t, "slow-labels", func(o *Options) {
		uncached(t, o, "6")
		o.Limits = limits.Config{Timeout: meetTimeout}
	})
	assert.NilError(t, err)
	assert.Equal(t, res.Verdict, protocol.OK)
}

// TestInterruptDuringLabelRead: a caller that gives up while the engine is
// asked for the image's interpreter is interrupted, not an engine failure.
// The interrupt comes once the fake logged the label read, which then
// takes 6 s to answer.
func TestInterruptDuringLabelRead(t *testing.T) {
	t.Parallel()
	o, state := fake(t, "slow-labels")
	uncached(t, &o, "7")
	ctx, cancel := context.WithCancelCause(context.Background())
	asked := func() bool {
		return slices.ContainsFunc(fakedocker.Calls(state), func(c []string) bool { return c[0] == "image" })
	}
	ran := make(chan struct{})
	defer close(ran)
	whenever(asked, ran, func() { cancel(errors.New("interrupt")) })
	res, err := Run(ctx, Request{Source: "1+2"}, o)
	assert.Equal(t, res.Verdict, protocol.Interrupted, "%v", err)
	assert.Assert(t, is.Len(fakedocker.Containers(state), 0))
}

// TestArgvWithACommandNeedsNoDocker: with a command after --, the argv is
// the options' alone: no docker client is looked up and none is run, so
// an auditor renders it on a machine without docker.
func TestArgvWithACommandNeedsNoDocker(t *testing.T) {
	t.Parallel()
	o := Options{Image: testImage, Exec: []string{"python3", "-"},
		Engine: Engine{CLI: "/nonexistent/docker", Env: []string{"PATH=/nonexistent", "XDG_CACHE_HOME=" + t.TempDir()}}}
	argv, err := o.Argv(time.Unix(1800000000, 0))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(strings.Join(argv[len(argv)-3:], " "), "--exec python3 -"))
}
