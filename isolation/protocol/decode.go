package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// DecodeRequest strictly decodes the runner's request frame by the one
// rule of every frame (decodeStrict): one JSON object with exactly the
// field "source" holding a string, and the source's rules (CheckSource)
// for its mode. A frame over the request limit is refused as such, before
// decoding: a reader keeps at most one byte more than the limit.
func DecodeRequest(b []byte, starlark bool) (Request, error) {
	if len(b) > limits.MaxRequestBytes {
		return Request{}, requestTooLarge(-1)
	}
	var frame struct {
		Source json.RawMessage `json:"source"`
	}
	err := decodeStrict(b, &frame)
	var req Request
	if err == nil {
		req, err = sourceOf(frame.Source, starlark)
	}
	var large *tooLargeError
	if err != nil && !errors.As(err, &large) { // that one names the request already
		err = fmt.Errorf("request: %w", err)
	}
	return req, err
}

// DecodeLine strictly decodes a batch line, {"id": ..., "source": "..."},
// by the rule of every frame: the request, and its id (a string, a number
// or null) even when the rest is refused, so the refusal can carry it. A
// line longer than limits.MaxLineBytes is longer than any whose request is
// within the limit: a reader keeps at most one byte more of it.
func DecodeLine(b []byte, starlark bool) (json.RawMessage, Request, error) {
	if len(b) > limits.MaxLineBytes {
		return nil, Request{}, requestTooLarge(-1)
	}
	var line struct {
		ID     json.RawMessage `json:"id"`
		Source json.RawMessage `json:"source"`
	}
	if err := decodeStrict(b, &line); err != nil {
		return nil, Request{}, err
	}
	id := line.ID
	if len(id) > 0 && id[0] != '"' && id[0] != '-' && (id[0] < '0' || id[0] > '9') && string(id) != "null" {
		return nil, Request{}, errors.New(`"id" must be a string or a number`)
	}
	req, err := sourceOf(line.Source, starlark)
	return id, req, err
}

// sourceOf takes the "source" field (nil when absent) and applies the
// source's rules.
func sourceOf(raw json.RawMessage, starlark bool) (Request, error) {
	if raw == nil {
		return Request{}, errors.New(`missing field "source"`)
	}
	var req Request
	if raw[0] != '"' || json.Unmarshal(raw, &req.Source) != nil {
		return Request{}, errors.New(`"source" must be a string`)
	}
	if err := CheckSource(req.Source, starlark); err != nil {
		return Request{}, err
	}
	return req, nil
}

// CheckSource is the one rule set of a program's source, however it
// arrived (--code, --file, stdin, a batch line, the runner's stdin): valid
// UTF-8; in Starlark mode no NUL byte (go.starlark.net's scanner stops at
// one, so everything after it would silently never run; exec mode passes
// bytes to the interpreter as they are); and at most
// limits.MaxRequestBytes once encoded.
func CheckSource(source string, starlark bool) error {
	_, err := EncodeRequest(Request{Source: source}, starlark)
	return err
}

// EncodeRequest encodes a request, refusing one that breaks the source's
// rules (CheckSource). The encoding holds no raw newline (JSON escapes it
// in strings), so the frame on the wire is this plus one newline.
func EncodeRequest(r Request, starlark bool) ([]byte, error) {
	if err := checkUTF8(r.Source); err != nil {
		return nil, fmt.Errorf("source: %w", err)
	}
	if i := strings.IndexByte(r.Source, 0); starlark && i >= 0 {
		return nil, fmt.Errorf("source: NUL byte at offset %d (Starlark would stop reading there)", i)
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	if len(b) > limits.MaxRequestBytes {
		return nil, requestTooLarge(len(b))
	}
	return b, nil
}

// ReadSource reads a program's source from r, at most the request limit
// plus one byte, so an oversized source is refused without being read
// whole, with the one message of a request over the limit. The source's
// other rules are CheckSource's.
func ReadSource(r io.Reader) (string, error) {
	b, err := io.ReadAll(io.LimitReader(r, limits.MaxRequestBytes+1))
	if err != nil {
		return "", err
	}
	if len(b) > limits.MaxRequestBytes {
		// Encoding never shrinks a source: this request is over the limit.
		return "", requestTooLarge(-1)
	}
	return string(b), nil
}

// requestTooLarge is the one message for a request over the size limit,
// however it arrived (--code, --file, stdin, a batch line): n is its
// encoded size, or -1 when reading stopped at the bound, before the end.
func requestTooLarge(n int) error { return &tooLargeError{n: n} }

type tooLargeError struct{ n int }

// ErrTooLarge is what every refusal of a request over the size limit is
// (errors.Is).
var ErrTooLarge = errors.New("request too large")

func (e *tooLargeError) Is(target error) bool { return target == ErrTooLarge }

func (e *tooLargeError) Error() string {
	if e.n < 0 {
		return fmt.Sprintf("request: more than %d bytes encoded, the limit", limits.MaxRequestBytes)
	}
	return fmt.Sprintf("request: %d bytes encoded, limit is %d", e.n, limits.MaxRequestBytes)
}

// DecodeResponse strictly decodes a runner response by the one rule of
// every frame (decodeStrict: one JSON object, known fields only and each
// once, at every depth, nothing after it), then checks protocol version 2
// and that the fields agree with each other and with the output cap. A
// response that breaks any rule came from a broken or hostile container.
func DecodeResponse(b []byte) (Response, error) {
	if len(b) > limits.MaxResponseBytes {
		return Response{}, fmt.Errorf("response: larger than %d bytes", limits.MaxResponseBytes)
	}
	if len(bytes.TrimLeft(b, " \t\r\n")) == 0 {
		return Response{}, errors.New("response: empty")
	}
	var r Response
	if err := decodeStrict(b, &r); err != nil {
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
	case r.Usage != nil && r.Usage.CPUMicros != nil && *r.Usage.CPUMicros < 0:
		return fmt.Errorf("response: negative cpu_us %d", *r.Usage.CPUMicros)
	case r.Usage != nil && r.Usage.MemoryPeakBytes != nil && *r.Usage.MemoryPeakBytes < 0:
		return fmt.Errorf("response: negative memory_peak_bytes %d", *r.Usage.MemoryPeakBytes)
	}
	return nil
}
