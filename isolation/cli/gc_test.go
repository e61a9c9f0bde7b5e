package cli

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestGCSaysWhenThereIsNothingToRemove: in text, a line on stderr (stdout
// stays the list, empty); in JSON, an empty list; and never when gc could
// not look.
func TestGCSaysWhenThereIsNothingToRemove(t *testing.T) {
	t.Parallel()
	self, _, env := useFakeDocker(t, "ok")
	for _, flags := range [][]string{{}, {"--dry-run"}, {"--all"}} {
		code, out, errOut := runCLIEnv(t, env, "", append([]string{"gc", "--cli", self}, flags...)...)
		assert.Check(t, is.Equal(code, 0), "%q", flags)
		assert.Check(t, is.Equal(out, ""), "%q", flags)
		assert.Check(t, is.Equal(errOut, "gc: nothing to remove\n"), "%q", flags)
	}
	code, out, errOut := runCLIEnv(t, env, "", "gc", "--cli", self, "--format", "json")
	assert.Check(t, is.Equal(code, 0))
	assert.Check(t, is.Equal(out, "[]\n"))
	assert.Check(t, is.Equal(errOut, ""))

	self, _, env = useFakeDocker(t, "unreachable")
	code, _, errOut = runCLIEnv(t, env, "", "gc", "--cli", self)
	assert.Check(t, code != 0)
	assert.Check(t, !strings.Contains(errOut, "nothing to remove"), errOut)
}
