package isolation

import (
	"context"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
)

// Each test of a declared interpreter has its own image ID, so the
// answer it reads is its own; the other tests' testImage declares none.
var (
	pythonImage = "sha256:" + strings.Repeat("1", 64)
	badImage    = "sha256:" + strings.Repeat("2", 64)
)

// TestRunUsesTheDeclaredInterpreter: without Exec, the image's label
// decides; its argv carries --exec and the result names it; Exec still
// overrides, and an image without the label runs Starlark. The label is
// read once: the run keeps it for the argv (docker.Keep).
func TestRunUsesTheDeclaredInterpreter(t *testing.T) {
	t.Parallel()
	o, state := fake(t, "python-label")
	o.Image = pythonImage
	res, err := Run(context.Background(), Request{Source: "import sys"}, o)
	assert.NilError(t, err)
	assert.Equal(t, res.Interpreter, "python3 -")
	run := lastRun(state)
	assert.DeepEqual(t, run[len(run)-3:], []string{"--exec", "python3", "-"})
	argv, err := o.Argv(time.Unix(0, 0))
	assert.NilError(t, err)
	assert.DeepEqual(t, argv[len(argv)-3:], []string{"--exec", "python3", "-"})
	inspects := 0
	for _, c := range fakedocker.Calls(state) {
		if c[0] == "image" {
			inspects++
		}
	}
	assert.Equal(t, inspects, 1, "the label is read once per image ID")

	o.Exec = []string{"cat"}
	res, err = Run(context.Background(), Request{Source: "x"}, o)
	assert.NilError(t, err)
	assert.Equal(t, res.Interpreter, "cat")

	res, _, err = runFake(t, "ok")
	assert.NilError(t, err)
	assert.Equal(t, res.Interpreter, "starlark")
}

// TestBadExecLabelIsRefused: a label that is not a command line is the
// sandbox's failure, before any container; never a fallback to Starlark.
func TestBadExecLabelIsRefused(t *testing.T) {
	t.Parallel()
	o, state := fake(t, "bad-label")
	o.Image = badImage
	res, err := Run(context.Background(), Request{Source: "1+2"}, o)
	assert.Equal(t, res.Verdict, protocol.SandboxFailure, "%v", err)
	assert.ErrorContains(t, err, "label io.synapse-isolation.exec: must be a JSON array of strings")
	assert.Check(t, lastRun(state) == nil, "a container was started")
	_, err = o.Argv(time.Unix(0, 0))
	assert.ErrorContains(t, err, "must be a JSON array of strings")
	_, err = NewPool(context.Background(), PoolOptions{Run: o})
	assert.ErrorContains(t, err, "must be a JSON array of strings")
	assert.Check(t, is.Nil(lastRun(state)))
}

// lastRun is the fake's last `docker run` argv, nil if none.
func lastRun(state string) []string {
	calls := fakedocker.Calls(state)
	for j := len(calls) - 1; j >= 0; j-- {
		if calls[j][0] == "run" {
			return calls[j]
		}
	}
	return nil
}
