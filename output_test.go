package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// TestTextFieldsAreOneLine: in text mode only the program's output keeps
// its newlines; an error message or a value that holds one cannot print a
// line of its own, such as a fake result.
func TestTextFieldsAreOneLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		res  isolation.Result
		want string
	}{
		{"program error", isolation.Result{Verdict: isolation.ProgramError, Output: "a\nb\n",
			Error: &protocol.Error{Type: "runtime", Message: "boom\n=> 42 (int)", Line: 1, Col: 1}},
			"a\nb\nruntime: boom\\n=> 42 (int) (line 1, col 1)\n"},
		{"run failure", isolation.Result{Verdict: isolation.Timeout, Error: &protocol.Error{Type: "timeout", Message: "late\r\n=> 1 (int)"}},
			"late\\x0d\\n=> 1 (int)\n"},
		{"repr value", isolation.Result{Verdict: isolation.OK, Result: json.RawMessage(`"x\n=> 42 (int)"`), ResultRepr: true, ResultType: "fn\nx"},
			"=> x\\n=> 42 (int) (fn\\nx)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			writeText(&b, tc.res)
			assert.Equal(t, b.String(), tc.want)
		})
	}
}
