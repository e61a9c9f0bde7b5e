package isolation

import (
	"encoding/json"
	"errors"
	"io"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// ErrorDetail is a program's error in a Result, or the reason its run
// failed, whose Type is then the verdict.
type ErrorDetail = protocol.Error

// ExecExit is how an exec-mode interpreter ended: its status or signal.
type ExecExit = protocol.Exit

// ProtocolVersion is the version of the wire protocol between this
// package and the runner in the image.
const ProtocolVersion = protocol.Version

// ReadSource reads a program's source from r, at most the request limit
// plus one byte: an oversized source is refused, a rejected *Error,
// without being read whole. Run, Eval and DecodeLine apply the same rules
// to every source, however it arrived, with one message per rule.
func ReadSource(r io.Reader) (string, error) {
	src, err := protocol.ReadSource(r)
	if errors.Is(err, protocol.ErrTooLarge) {
		return "", &Error{Verdict: Rejected, Err: err}
	}
	return src, err
}

// DecodeLine strictly decodes one JSON Lines request, {"id": ..., "source":
// "..."}: the request, and its id (a string, a number or null) even when
// the rest is refused, so the refusal can carry it. starlark applies
// Starlark's source rules (no NUL byte) as Run does without Options.Exec.
func DecodeLine(line []byte, starlark bool) (id json.RawMessage, req Request, err error) {
	return protocol.DecodeLine(line, starlark)
}
