package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// DecodeRequest strictly decodes the runner's request frame: one JSON
// object with exactly the field "source" holding a string, nothing before
// or after it, and the source's rules (CheckSource) for its mode. A frame
// over the request limit is refused as such, before decoding: a reader
// keeps at most one byte more than the limit.
func DecodeRequest(b []byte, starlark bool) (Request, error) {
	if len(b) > limits.MaxRequestBytes {
		return Request{}, requestTooLarge(-1)
	}
	fields, err := decodeObject(b, "source")
	var req Request
	if err == nil {
		req, err = sourceOf(fields, starlark)
	}
	var large *tooLargeError
	if err != nil && !errors.As(err, &large) { // that one names the request already
		err = fmt.Errorf("request: %w", err)
	}
	return req, err
}

// DecodeLine strictly decodes a batch line, {"id": ..., "source": "..."}:
// the request, and its id (a string, a number or null) even when the rest
// is refused, so the refusal can carry it. A line longer than
// limits.MaxLineBytes is longer than any whose request is within the
// limit: a reader keeps at most one byte more of it, and decodeObject
// refuses it.
func DecodeLine(b []byte, starlark bool) (json.RawMessage, Request, error) {
	fields, err := decodeObject(b, "id", "source")
	if err != nil {
		return nil, Request{}, err
	}
	id := fields["id"]
	if len(id) > 0 && id[0] != '"' && id[0] != '-' && (id[0] < '0' || id[0] > '9') && string(id) != "null" {
		return nil, Request{}, errors.New(`"id" must be a string or a number`)
	}
	req, err := sourceOf(fields, starlark)
	return id, req, err
}

// sourceOf takes the "source" field and applies the source's rules.
func sourceOf(fields map[string]json.RawMessage, starlark bool) (Request, error) {
	raw, ok := fields["source"]
	if !ok {
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

// decodeObject decodes one JSON object whose fields are among names, each
// at most once, with nothing before or after it, from at most
// limits.MaxLineBytes of valid UTF-8 (a batch line: a request at its limit
// and an id).
func decodeObject(b []byte, names ...string) (map[string]json.RawMessage, error) {
	if len(b) > limits.MaxLineBytes {
		return nil, requestTooLarge(-1)
	}
	if err := checkUTF8(b); err != nil {
		// encoding/json would silently replace invalid bytes with U+FFFD.
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("want a JSON object with %s", quoteAll(names))
	}
	fields := map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("not JSON: %w", err)
		}
		key, _ := t.(string)
		if !slices.Contains(names, key) {
			return nil, fmt.Errorf("unknown field %q (want %s only)", key, quoteAll(names))
		}
		if _, dup := fields[key]; dup {
			return nil, fmt.Errorf("duplicate field %q", key)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("not JSON: %w", err)
		}
		fields[key] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	if err := expectEOF(dec); err != nil {
		return nil, err
	}
	return fields, nil
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, " and ")
}

// checkUTF8 names the byte offset of the first invalid UTF-8 sequence.
func checkUTF8[T string | []byte](b T) error {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRuneInString(string(b[i:min(i+utf8.UTFMax, len(b))]))
		if r == utf8.RuneError && n <= 1 {
			return fmt.Errorf("invalid UTF-8 at offset %d", i)
		}
		i += n
	}
	return nil
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
	case r.Usage != nil && r.Usage.CPUMicros != nil && *r.Usage.CPUMicros < 0:
		return fmt.Errorf("response: negative cpu_us %d", *r.Usage.CPUMicros)
	case r.Usage != nil && r.Usage.MemoryPeakBytes != nil && *r.Usage.MemoryPeakBytes < 0:
		return fmt.Errorf("response: negative memory_peak_bytes %d", *r.Usage.MemoryPeakBytes)
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
