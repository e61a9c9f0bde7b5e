package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol/hello"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/strict"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// DecodeHello strictly decodes the runner's hello line (without its
// newline), at most limits.MaxHelloBytes, by the one rule of every frame
// (strict.Decode): one JSON object with exactly the fields "v" and
// "selfcheck", known fields inside, each once, nothing after it, of
// Version. A line of another version is refused naming it.
func DecodeHello(line []byte) (hello.Frame, error) {
	if len(line) > limits.MaxHelloBytes {
		return hello.Frame{}, fmt.Errorf("hello: larger than %d bytes", limits.MaxHelloBytes)
	}
	if v, ok := PeekVersion(line); ok && v != Version {
		return hello.Frame{}, fmt.Errorf("hello: the runner speaks protocol version %d, want %d", v, Version)
	}
	var h hello.Frame
	if err := strict.Decode(line, &h); err != nil {
		return hello.Frame{}, fmt.Errorf("hello: %w", err)
	}
	switch {
	case h.V != Version:
		return hello.Frame{}, fmt.Errorf("hello: protocol version %d, want %d", h.V, Version)
	case h.Selfcheck == nil:
		return hello.Frame{}, errors.New(`hello: missing field "selfcheck"`)
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
