package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol/strict"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// DecodeRequest is DecodeFrame without the stop and the role: the
// request alone.
func DecodeRequest(b []byte, starlark bool) (Request, error) {
	f, _, err := DecodeFrame(b, starlark)
	return f.Request, err
}

// DecodeFrame strictly decodes the runner's request frame by the one
// rule of every frame: valid UTF-8, one JSON object with the field
// "source" holding a string and, optionally, "stdin" (a string) and
// "files" (an object of names to strings), each key once, at every depth,
// nothing after it; its "role", one of a closed set (Role: absent,
// RoleCompare); and a request's rules for its mode (EncodeFrame's:
// text, plain file names, at most limits.MaxRequestBytes encoded). A frame
// over the request limit is refused as such, before decoding: a reader
// keeps at most one byte more than the limit (MaxFrameBytes, which leaves
// room for the stop). The host sends <, > and & unescaped; JSON allows
// both spellings and either decodes the same.
//
// The frame may carry the host's stop, "stop_ms" (WithStop): it is
// returned apart, zero when there is none.
func DecodeFrame(b []byte, starlark bool) (Frame, time.Duration, error) {
	if len(b) > limits.MaxRequestBytes+stopBytes(b) {
		return Frame{}, 0, overLimit()
	}
	var frame struct {
		Source  json.RawMessage `json:"source"`
		Stdin   json.RawMessage `json:"stdin"`
		Files   json.RawMessage `json:"files"`
		Binary  json.RawMessage `json:"binary"`
		Collect json.RawMessage `json:"collect"`
		Tests   json.RawMessage `json:"tests"`
		Compare json.RawMessage `json:"compare"`
		Role    json.RawMessage `json:"role"`
		Stop    json.RawMessage `json:"stop_ms"`
	}
	err := strict.Decode(b, &frame)
	var stop time.Duration
	if err == nil {
		stop, err = decodeStop(frame.Stop)
	}
	var f Frame
	if err == nil {
		f.role, err = decodeRole(frame.Role)
	}
	if err == nil {
		// Each field is read raw, then by its own decoder, so one of the
		// wrong shape (or null) is refused naming it, as encoding/json
		// would not.
		f.Request, err = decodeFields(frame.Source, frame.Stdin, frame.Files, frame.Binary, frame.Collect, frame.Tests, frame.Compare, starlark)
	}
	if err == nil {
		_, err = EncodeFrame(f, starlark) // every rule of a frame, its bound as the host encodes it
	}
	if err != nil {
		if !errors.Is(err, ErrTooLarge) { // that one names the request already
			err = fmt.Errorf("request: %w", err)
		}
		return Frame{}, 0, err
	}
	return f, stop, nil
}

// decodeFields is the request of a frame's fields (each nil when absent),
// each decoded by its own rule; the frame's rules are the caller's to
// apply.
func decodeFields(src, stdin, files, binary, collect, tests, compare json.RawMessage, starlark bool) (Request, error) {
	var req Request
	var err error
	if req.Source, err = DecodeSource(src, starlark); err != nil {
		return Request{}, err
	}
	if req.Stdin, err = DecodeString(stdin, "stdin"); err != nil {
		return Request{}, err
	}
	if req.Files, err = decodeObject[string](files, `"files" must be an object of names to strings`); err != nil {
		return Request{}, err
	}
	if req.Binary, err = decodeObject[[]byte](binary, `"binary" must be an object of names to base64 strings`); err != nil {
		return Request{}, err
	}
	if req.Collect, err = DecodeCollect(collect); err != nil {
		return Request{}, err
	}
	if req.Tests, err = decodeTests(tests); err != nil {
		return Request{}, err
	}
	if req.Compare, err = DecodeString(compare, "compare"); err != nil {
		return Request{}, err
	}
	return req, nil
}

// DecodeSource decodes a request's "source" field as a request frame or a
// batch line carries it (nil when absent) and applies the source's rules
// alone (checkSource), before the request's other parts: a program over
// the bound is refused naming its own size.
func DecodeSource(raw json.RawMessage, starlark bool) (string, error) {
	if raw == nil {
		return "", errors.New(`missing field "source"`)
	}
	src, err := DecodeString(raw, "source")
	if err != nil {
		return "", err
	}
	if err := checkSource(src, starlark); err != nil {
		return "", err
	}
	return src, nil
}

// DecodeString decodes raw, the value of a request's field name ("stdin",
// "compare"; nil when absent, which is ""), as a string: null or another
// shape is refused naming it.
func DecodeString(raw json.RawMessage, name string) (string, error) {
	if raw == nil {
		return "", nil
	}
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", fmt.Errorf("%q must be a string", name)
	}
	return s, nil
}

// DecodeCollect decodes a request's "collect" (nil when absent), an
// array of patterns; the patterns' rules are CheckRequest's.
func DecodeCollect(raw json.RawMessage) ([]string, error) {
	if raw == nil {
		return nil, nil
	}
	var patterns []string
	if raw[0] != '[' || json.Unmarshal(raw, &patterns) != nil {
		return nil, errors.New(`"collect" must be an array of patterns`)
	}
	return patterns, nil
}

// decodeObject decodes raw (nil when absent) as a JSON object of names to
// T, refusing any other shape with msg. A name twice is the strict
// decoder's refusal (a duplicate key), before this; the names' rules are
// CheckRequest's.
func decodeObject[T any](raw json.RawMessage, msg string) (map[string]T, error) {
	if raw == nil {
		return nil, nil
	}
	var m map[string]T
	if raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
		return nil, errors.New(msg)
	}
	return m, nil
}

// decodeTests decodes a request frame's "tests" (nil when absent): an
// array of objects, each with a name, stdin_bytes and, optionally,
// expect_bytes; their rules are CheckRequest's.
func decodeTests(raw json.RawMessage) ([]Test, error) {
	if raw == nil {
		return nil, nil
	}
	var tests []Test
	if raw[0] != '[' || json.Unmarshal(raw, &tests) != nil {
		return nil, errors.New(`"tests" must be an array of {"name", "stdin_bytes", "expect_bytes"}`)
	}
	if tests == nil {
		tests = []Test{}
	}
	return tests, nil
}
