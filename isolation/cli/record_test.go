package cli

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// TestExecExitHasBothKeys: exec_exit always has "code" and "signal",
// null for the one that does not apply, and is null in Starlark mode.
func TestExecExitHasBothKeys(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		exit *protocol.Exit
		want string
	}{
		{&protocol.Exit{Code: 0}, `"exec_exit":{"code":0,"signal":null}`},
		{&protocol.Exit{Code: 3}, `"exec_exit":{"code":3,"signal":null}`},
		{&protocol.Exit{Code: -1, Signal: "killed"}, `"exec_exit":{"code":null,"signal":"killed"}`},
		{nil, `"exec_exit":null`},
	} {
		out, err := encodeJSON(newRecord(isolation.Result{Verdict: protocol.OK, Exec: tc.exit}, 0))
		assert.NilError(t, err)
		assert.Check(t, is.Contains(string(out), tc.want))
	}
}
