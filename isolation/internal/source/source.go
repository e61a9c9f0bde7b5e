// Package source is the one rule set of a program's source however it
// arrives (--code, --file, stdin, a batch line, the runner's stdin) and
// the one encoding of the request frame that carries it: valid UTF-8, in
// Starlark mode no NUL byte, and at most limits.MaxRequestBytes encoded.
// The runner's request decoder (protocol.DecodeRequest) and the host share
// it, so a source the host sends is one the runner takes.
package source

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/strict"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// frame is the request frame, protocol.Request's wire form: exactly the
// field "source" (TestEncodeDecodes in package protocol holds them
// together).
type frame struct {
	Source string `json:"source"`
}

// Check applies the source's rules: valid UTF-8; in Starlark mode no NUL
// byte (go.starlark.net's scanner stops at one, so everything after it
// would silently never run; exec mode passes bytes to the interpreter as
// they are); and at most limits.MaxRequestBytes once encoded.
func Check(src string, starlark bool) error {
	_, err := Encode(src, starlark)
	return err
}

// Encode encodes the request frame of src, refusing a source that breaks
// its rules (Check). HTML characters are not escaped: <, > and & are a
// byte each, as the program wrote them, not six against the bound (JSON
// allows both spellings, the runner decodes either). The encoding holds
// no raw newline (JSON escapes it in strings), so the frame on the wire
// is this plus one newline.
func Encode(src string, starlark bool) ([]byte, error) {
	if err := strict.CheckUTF8(src); err != nil {
		return nil, fmt.Errorf("source: %w", err)
	}
	if i := strings.IndexByte(src, 0); starlark && i >= 0 {
		return nil, fmt.Errorf("source: NUL byte at offset %d (Starlark would stop reading there)", i)
	}
	var buf bytes.Buffer
	buf.Grow(len(src) + len(`{"source":""}`) + 1)
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(frame{Source: src}); err != nil {
		return nil, err
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n")) // Encode's own newline
	if len(b) > limits.MaxRequestBytes {
		return nil, &tooLargeError{program: int64(len(src)), encoded: len(b)}
	}
	return b, nil
}

// Field takes a frame's "source" field (nil when absent) and applies the
// source's rules.
func Field(raw json.RawMessage, starlark bool) (string, error) {
	if raw == nil {
		return "", errors.New(`missing field "source"`)
	}
	var src string
	if raw[0] != '"' || json.Unmarshal(raw, &src) != nil {
		return "", errors.New(`"source" must be a string`)
	}
	if err := Check(src, starlark); err != nil {
		return "", err
	}
	return src, nil
}
