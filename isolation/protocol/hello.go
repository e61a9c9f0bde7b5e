package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// DecodeHello strictly decodes the runner's hello line (without its
// newline): one JSON object of protocol version 2 with exactly the fields
// "v" and "selfcheck", known fields inside, nothing after it, at most
// limits.MaxHelloBytes. A line of another version is refused naming it.
func DecodeHello(line []byte) (Hello, error) {
	if len(line) > limits.MaxHelloBytes {
		return Hello{}, fmt.Errorf("hello: larger than %d bytes", limits.MaxHelloBytes)
	}
	if !utf8.Valid(line) {
		return Hello{}, errors.New("hello: invalid UTF-8")
	}
	if v, ok := PeekVersion(line); ok && v != Version {
		return Hello{}, fmt.Errorf("hello: the runner speaks protocol version %d, want %d", v, Version)
	}
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return Hello{}, errors.New("hello: want a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	var h Hello
	if err := dec.Decode(&h); err != nil {
		return Hello{}, fmt.Errorf("hello: %w", err)
	}
	if err := expectEOF(dec); err != nil {
		return Hello{}, fmt.Errorf("hello: %w", err)
	}
	switch {
	case h.V != Version:
		return Hello{}, fmt.Errorf("hello: protocol version %d, want %d", h.V, Version)
	case h.Selfcheck == nil:
		return Hello{}, errors.New(`hello: missing field "selfcheck"`)
	}
	return h, nil
}

// PeekVersion reads the "v" of a JSON object leniently, so a runner of
// another protocol version can be named even when the rest of its frame
// does not decode as this version's.
func PeekVersion(frame []byte) (int, bool) {
	var p struct {
		V *int `json:"v"`
	}
	if json.Unmarshal(bytes.TrimSpace(frame), &p) != nil || p.V == nil {
		return 0, false
	}
	return *p.V, true
}
