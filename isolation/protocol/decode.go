package protocol

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/source"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/strict"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// DecodeRequest strictly decodes the runner's request frame by the one
// rule of every frame: valid UTF-8, one JSON object with exactly the field
// "source" holding a string, that key once, nothing after it; and the
// source's rules for its mode (valid UTF-8, in Starlark mode no NUL byte,
// at most limits.MaxRequestBytes encoded). A frame over the request limit
// is refused as such, before decoding: a reader keeps at most one byte
// more than the limit. The host sends <, > and & unescaped; JSON allows
// both spellings and either decodes the same.
func DecodeRequest(b []byte, starlark bool) (Request, error) {
	if len(b) > limits.MaxRequestBytes {
		return Request{}, source.OverLimit()
	}
	var frame struct {
		Source json.RawMessage `json:"source"`
	}
	err := strict.Decode(b, &frame)
	var req Request
	if err == nil {
		req.Source, err = source.Field(frame.Source, starlark)
	}
	if err != nil && !errors.Is(err, source.ErrTooLarge) { // that one names the request already
		err = fmt.Errorf("request: %w", err)
	}
	return req, err
}
