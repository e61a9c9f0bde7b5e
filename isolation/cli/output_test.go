package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

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

// brokenStdout fails every write, as a closed pipe or a full disk would.
type brokenStdout struct{}

func (brokenStdout) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestResultWriteFailureIsNotSuccess: a result that could not be written
// to stdout is not reported as the verdict's status: the exit status says
// the tool failed (125), and stderr says why.
func TestResultWriteFailureIsNotSuccess(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"json", "text"} {
		var stderr bytes.Buffer
		code := run(context.Background(), []string{"synapse-isolation", "eval", "--format", format, "--code", "1+2"},
			os.Environ(), strings.NewReader(""), brokenStdout{}, &stderr)
		assert.Check(t, is.Equal(code, 125), format)
		assert.Check(t, is.Contains(stderr.String(), "writing the result: no space left on device"), format)
	}
}
