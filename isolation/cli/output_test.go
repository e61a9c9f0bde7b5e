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
// its newlines; a value that holds one cannot print a line of its own,
// such as a fake result. An error is not on stdout at all (report puts
// it on stderr, one line: TestTextErrorsOnStderrOnce).
func TestTextFieldsAreOneLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		res  isolation.Result
		want string
	}{
		{"program error", isolation.Result{Verdict: protocol.ProgramError, Streams: protocol.Streams{Output: "a\nb\n"},
			Error: &protocol.Error{Type: "runtime", Message: "boom\n=> 42 (int)", Line: 1, Col: 1}},
			"a\nb\n"},
		{"run failure", isolation.Result{Verdict: protocol.Timeout, Error: &protocol.Error{Type: "timeout", Message: "late\r\n=> 1 (int)"}},
			""},
		{"repr value", isolation.Result{Verdict: protocol.OK, Result: json.RawMessage(`"x\n=> 42 (int)"`), ResultRepr: true, ResultType: "fn\nx"},
			"=> x\\n=> 42 (int) (fn\\nx)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b, e bytes.Buffer
			writeText(&b, &e, tc.res, true)
			assert.Equal(t, b.String(), tc.want)
			assert.Equal(t, e.String(), "")
		})
	}
}

// TestTextStreams: stdout is what the program printed, byte for byte
// (no newline added unless the value follows), stderr goes to stderr.
func TestTextStreams(t *testing.T) {
	for _, tc := range []struct {
		res          isolation.Result
		verdict      bool
		out, errText string
	}{
		{isolation.Result{Streams: protocol.Streams{Output: "3 4", Stderr: "warn"}}, false, "3 4", "warn"},
		{isolation.Result{Streams: protocol.Streams{Output: "3 4", Stderr: "warn"}}, true, "3 4", "warn\n"},
		{isolation.Result{Streams: protocol.Streams{Output: "a"}, Result: json.RawMessage(`1`), ResultType: "int"}, false, "a\n=> 1 (int)\n", ""},
		{isolation.Result{Streams: protocol.Streams{Output: "a\x1b[2J\n", Stderr: "e\x07\n"}}, true, "a\\x1b[2J\n", "e\\x07\n"},
	} {
		var b, e bytes.Buffer
		writeText(&b, &e, tc.res, tc.verdict)
		assert.Check(t, is.Equal(b.String(), tc.out))
		assert.Check(t, is.Equal(e.String(), tc.errText))
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

// TestJSONKeepsAnglesAndAmpersands: every command's JSON prints <, > and &
// as themselves, never as \u003c, \u003e and \u0026 (an image ID's
// placeholder, sha256:<64 hex digits>, names the form a user must type).
func TestJSONKeepsAnglesAndAmpersands(t *testing.T) {
	t.Parallel()
	const s = "<&>"
	self, _, env := useFakeDocker(t, "by-source")
	for _, tc := range []struct {
		name, stdin string
		args        []string
		env         []string
		want        string
	}{
		{"run", "", []string{"run", "--image", "python:latest", "--code", "1"}, nil, "sha256:<64 lowercase hex digits>"},
		{"eval", "", []string{"eval", "--code", `"<&>"`}, nil, `"result":"<&>"`},
		{"argv", "", []string{"argv", "--image", testImage, "--format", "json", "--", "sh", "-", s}, nil, `"sh","-","<&>"]`},
		{"audit", "", []string{"audit", "--format", "json", "--", "docker", "run", "-e", s, testImage}, nil, `"detail":"--env <&>"`},
		{"audit error", "", []string{"audit", "--format", "json", "--", s}, nil, `the first word is \"<&>\"`},
		{"doctor", "", []string{"doctor", "--format", "json", "--cli", "/nonexistent/" + s}, nil, `docker CLI \"/nonexistent/<&>\"`},
		{"batch", `{"id":"<&>","source":"ok"}` + "\n" + `{"id":"<&>","source":1}` + "\n",
			[]string{"batch", "--image", testImage, "--cli", self, "--ordered"}, env, `{"id":"<&>","line":2,`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env == nil {
				tc.env = os.Environ()
			}
			_, out, _ := runCLIEnv(t, tc.env, tc.stdin, tc.args...)
			assert.Check(t, is.Contains(out, tc.want))
			assert.Check(t, !strings.Contains(out, `\u00`), out)
		})
	}
	// gc and version print what docker and the build say; their writers
	// are given the characters here.
	var b bytes.Buffer
	writeGC(&b, "json", false, []isolation.Leftover{{Name: s, Why: s}})
	writeDoctor(&b, "json", []isolation.Check{{Detail: "image: must be sha256:<64 hex digits>"}})
	assert.NilError(t, writeJSON(&b, buildVersion{Version: s}))
	assert.Check(t, is.Equal(strings.Count(b.String(), s), 3))
	assert.Check(t, is.Contains(b.String(), "sha256:<64 hex digits>"))
	assert.Check(t, !strings.Contains(b.String(), `\u00`), b.String())
}
