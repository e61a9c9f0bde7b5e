package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/source"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/strict"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// DecodeRequest is DecodeFrame without the stop: the request alone.
func DecodeRequest(b []byte, starlark bool) (Request, error) {
	req, _, err := DecodeFrame(b, starlark)
	return req, err
}

// DecodeFrame strictly decodes the runner's request frame by the one
// rule of every frame: valid UTF-8, one JSON object with the field
// "source" holding a string and, optionally, "stdin" (a string) and
// "files" (an object of names to strings), each key once, at every depth,
// nothing after it; and a request's rules for its mode (source.EncodeInput:
// text, plain file names, at most limits.MaxRequestBytes encoded). A frame
// over the request limit is refused as such, before decoding: a reader
// keeps at most one byte more than the limit (MaxFrameBytes, which leaves
// room for the stop). The host sends <, > and & unescaped; JSON allows
// both spellings and either decodes the same.
//
// The frame may carry the host's stop, "stop_ms" (WithStop): it is
// returned apart, zero when there is none.
func DecodeFrame(b []byte, starlark bool) (Request, time.Duration, error) {
	if len(b) > limits.MaxRequestBytes+stopBytes(b) {
		return Request{}, 0, source.OverLimit()
	}
	var frame struct {
		Source  json.RawMessage `json:"source"`
		Stdin   json.RawMessage `json:"stdin"`
		Files   json.RawMessage `json:"files"`
		Binary  json.RawMessage `json:"binary"`
		Collect json.RawMessage `json:"collect"`
		Tests   json.RawMessage `json:"tests"`
		Compare json.RawMessage `json:"compare"`
		Stop    json.RawMessage `json:"stop_ms"`
	}
	err := strict.Decode(b, &frame)
	var in source.Input
	var stop time.Duration
	if err == nil {
		stop, err = decodeStop(frame.Stop)
	}
	if err == nil {
		in, err = source.Fields(frame.Source, frame.Stdin, frame.Files, starlark)
	}
	if err == nil {
		in, err = source.Extras(in, frame.Binary, frame.Collect, starlark)
	}
	if err == nil {
		in, err = source.Judge(in, frame.Tests, frame.Compare, starlark)
	}
	if err != nil && !errors.Is(err, source.ErrTooLarge) { // that one names the request already
		err = fmt.Errorf("request: %w", err)
	}
	return Request(in), stop, err
}
