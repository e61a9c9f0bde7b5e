package isolation

import (
	"testing"

	"gotest.tools/v3/assert"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
)

// TestDuplicateKeysAreRefused: a frame that says a key twice is hostile,
// whichever of its values a lenient decoder would keep. A hello with "v"
// twice is refused before the source goes in; a response whose "ok" is
// false and then true is a sandbox failure, not a success.
func TestDuplicateKeysAreRefused(t *testing.T) {
	t.Parallel()
	t.Run("hello", func(t *testing.T) {
		t.Parallel()
		res, state, err := runFake(t, "hello-duplicate-key")
		assert.Equal(t, res.Verdict, protocol.SandboxFailure, "%v", err)
		assert.ErrorContains(t, err, `duplicate field "v"`)
		assert.Assert(t, !res.Sandboxed)
		assert.Equal(t, fakedocker.Stdin(state), "", "the source reached the container")
	})
	t.Run("response", func(t *testing.T) {
		t.Parallel()
		res, _, err := runFake(t, "response-duplicate-key")
		assert.Equal(t, res.Verdict, protocol.SandboxFailure, "%v", err)
		assert.ErrorContains(t, err, `duplicate field "ok"`)
		assert.Assert(t, res.Sandboxed, "the hello passed; the response was refused")
		assert.Assert(t, res.Result == nil && res.Output == "")
	})
}
