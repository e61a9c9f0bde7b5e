package wire

import (
	"encoding/json"
	"errors"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/source"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/strict"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// DecodeLine strictly decodes a batch line, {"id": ..., "source": "...",
// "stdin": "...", "files": {"NAME": "...", ...}} (stdin and files
// optional), by the rule of every frame and a request's rules
// (source.Fields): the request, and its id (a string, a number or null)
// even when the rest is refused, so the refusal can carry it. A
// line longer than limits.MaxLineBytes is longer than any whose request is
// within the limit: a reader keeps at most one byte more of it, and its
// refusal names the part the line passes the bound in, with the id when
// it came before (cutLine). starlark
// applies Starlark's source rules (no NUL byte) as Run does without
// Options.Exec.
func DecodeLine(b []byte, starlark bool) (json.RawMessage, protocol.Request, error) {
	if len(b) > limits.MaxLineBytes {
		id, part := cutLine(b)
		return id, protocol.Request{}, source.LineOverLimit(part)
	}
	var line struct {
		ID      json.RawMessage `json:"id"`
		Source  json.RawMessage `json:"source"`
		Stdin   json.RawMessage `json:"stdin"`
		Files   json.RawMessage `json:"files"`
		Collect json.RawMessage `json:"collect"`
		Tests   []lineTest      `json:"tests"`
		Compare json.RawMessage `json:"compare"`
	}
	if err := strict.Decode(b, &line); err != nil {
		return lineID(b), protocol.Request{}, err
	}
	id := line.ID
	if !validID(id) {
		return nil, protocol.Request{}, errors.New(`"id" must be a string or a number`)
	}
	text, binary, err := lineFiles(line.Files)
	if err != nil {
		return id, protocol.Request{}, err
	}
	in, err := source.Fields(line.Source, line.Stdin, text, starlark)
	if err == nil {
		in, err = source.Extras(in, binary, line.Collect, starlark)
	}
	if err == nil {
		in, err = source.Judge(in, nil, line.Compare, starlark)
	}
	if err == nil && line.Tests != nil {
		in.Tests = fromLine(line.Tests)
		err = source.CheckInput(in, starlark)
	}
	if err != nil {
		return id, protocol.Request{}, err
	}
	return id, protocol.Request(in), nil
}
