package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// DecodeRequest strictly decodes a request: one JSON object with exactly
// the field "source" holding a string, nothing before or after it, valid
// UTF-8, at most limits.MaxRequestBytes bytes.
func DecodeRequest(b []byte) (Request, error) {
	if len(b) > limits.MaxRequestBytes {
		return Request{}, fmt.Errorf("request: larger than %d bytes", limits.MaxRequestBytes)
	}
	if !utf8.Valid(b) {
		// encoding/json would silently replace invalid bytes with U+FFFD.
		return Request{}, errors.New("request: invalid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return Request{}, errors.New("request: want a JSON object")
	}
	var req Request
	seen := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return Request{}, fmt.Errorf("request: %w", err)
		}
		if t != "source" {
			return Request{}, fmt.Errorf("request: unknown field %q", t)
		}
		if seen {
			return Request{}, errors.New(`request: duplicate field "source"`)
		}
		seen = true
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return Request{}, fmt.Errorf("request: %w", err)
		}
		if len(raw) == 0 || raw[0] != '"' {
			return Request{}, errors.New(`request: "source" must be a string`)
		}
		if err := json.Unmarshal(raw, &req.Source); err != nil {
			return Request{}, fmt.Errorf("request: %w", err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return Request{}, fmt.Errorf("request: %w", err)
	}
	if !seen {
		return Request{}, errors.New(`request: missing field "source"`)
	}
	if err := expectEOF(dec); err != nil {
		return Request{}, fmt.Errorf("request: %w", err)
	}
	return req, nil
}

// EncodeRequest encodes a request, refusing one the runner would refuse.
// The encoding holds no raw newline (JSON escapes it in strings), so the
// frame on the wire is this plus one newline.
func EncodeRequest(r Request) ([]byte, error) {
	if !utf8.ValidString(r.Source) {
		return nil, errors.New("source: invalid UTF-8")
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	if len(b) > limits.MaxRequestBytes {
		return nil, RequestTooLarge(len(b))
	}
	return b, nil
}

// RequestTooLarge is the one message for a request over the size limit,
// however it arrived (--code, --file, stdin, a batch line): n is its
// encoded size, or -1 when reading stopped at the bound, before the end.
func RequestTooLarge(n int) error {
	if n < 0 {
		return fmt.Errorf("request: more than %d bytes encoded, the limit", limits.MaxRequestBytes)
	}
	return fmt.Errorf("request: %d bytes encoded, limit is %d", n, limits.MaxRequestBytes)
}

// DecodeResponse strictly decodes a runner response: one JSON object, known
// fields only, nothing after it, protocol version 2, and fields that agree
// with each other and with the output cap. A response that breaks any rule
// came from a broken or hostile container.
func DecodeResponse(b []byte) (Response, error) {
	if len(b) > limits.MaxResponseBytes {
		return Response{}, fmt.Errorf("response: larger than %d bytes", limits.MaxResponseBytes)
	}
	if !utf8.Valid(b) {
		return Response{}, errors.New("response: invalid UTF-8")
	}
	trimmed := bytes.TrimLeft(b, " \t\r\n")
	if len(trimmed) == 0 {
		return Response{}, errors.New("response: empty")
	}
	if trimmed[0] != '{' {
		return Response{}, errors.New("response: want a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	var r Response
	if err := dec.Decode(&r); err != nil {
		return Response{}, fmt.Errorf("response: %w", err)
	}
	if err := expectEOF(dec); err != nil {
		return Response{}, fmt.Errorf("response: %w", err)
	}
	return r, r.check()
}

func (r Response) check() error {
	switch {
	case r.V != Version:
		return fmt.Errorf("response: protocol version %d, want %d", r.V, Version)
	case len(r.Output) > limits.MaxOutputBytes:
		return fmt.Errorf("response: output is %d bytes, over the %d byte cap", len(r.Output), limits.MaxOutputBytes)
	case r.OutputBytes < 0:
		return fmt.Errorf("response: negative output_bytes %d", r.OutputBytes)
	case r.OutputTruncated != (r.OutputBytes > limits.MaxOutputBytes):
		return fmt.Errorf("response: output_truncated=%t disagrees with output_bytes %d and the %d byte cap",
			r.OutputTruncated, r.OutputBytes, limits.MaxOutputBytes)
	case r.OK && r.Error != nil:
		return errors.New("response: ok with an error")
	case !r.OK && r.Error == nil:
		return errors.New("response: not ok and no error")
	case r.Error != nil && r.Error.Type == "":
		return errors.New("response: error without a type")
	}
	return nil
}

// expectEOF reports any data after the first JSON value.
func expectEOF(dec *json.Decoder) error {
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// CheckStarlark refuses a source the Starlark evaluator would not read
// whole: go.starlark.net's scanner stops at a NUL byte, so everything after
// one would silently never run. Exec mode passes bytes to the
// interpreter's stdin as they are and does not call this.
func CheckStarlark(source string) error {
	if i := strings.IndexByte(source, 0); i >= 0 {
		return fmt.Errorf("source: NUL byte at offset %d (Starlark would stop reading there)", i)
	}
	return nil
}
