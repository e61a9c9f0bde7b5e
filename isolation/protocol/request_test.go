package protocol

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/synapse-lang/synapse-isolation/limits"
)

func TestCheckSource(t *testing.T) {
	assert.NilError(t, checkSource("print('é')", true))
	assert.Error(t, checkSource("ok\xff", true), "source: invalid UTF-8 at offset 2")
	assert.Error(t, checkSource("é\xc3", true), "source: invalid UTF-8 at offset 2")
	assert.Error(t, checkSource("1\x00", true), "source: NUL byte at offset 1 (Starlark would stop reading there)")
	assert.NilError(t, checkSource("1\x00", false))
}

// encode is the request frame of a source alone.
func encode(src string) ([]byte, error) { return EncodeRequest(Request{Source: src}, true) }

func TestEncode(t *testing.T) {
	b, err := encode("1+2")
	assert.NilError(t, err)
	assert.Equal(t, string(b), `{"source":"1+2"}`)
	_, err = encode("\xff")
	assert.Error(t, err, "source: invalid UTF-8 at offset 0")
	// The limit is on the encoded form: quoting can grow the source.
	_, err = encode(strings.Repeat(`"`, limits.MaxRequestBytes/2))
	assert.Error(t, err, "request: the program is 32768 bytes, 65549 bytes encoded, over the limit of 65536")
	assert.Assert(t, errors.Is(err, ErrTooLarge))
	b, err = encode(strings.Repeat("x", limits.MaxRequestBytes-len(`{"source":""}`)))
	assert.NilError(t, err)
	assert.Equal(t, len(b), limits.MaxRequestBytes)
}

// TestEncodeLeavesHTMLAlone: <, > and & are a byte each in the frame, as
// the program wrote them, so 15,000 of them fit the 64 KiB bound, where
// HTML escaping (\u003c, six bytes each) made 90,013.
func TestEncodeLeavesHTMLAlone(t *testing.T) {
	b, err := encode(strings.Repeat("<", 15000))
	assert.NilError(t, err)
	assert.Equal(t, string(b), `{"source":"`+strings.Repeat("<", 15000)+`"}`)
	b, err = encode(`a<b && c>d`)
	assert.NilError(t, err)
	assert.Equal(t, string(b), `{"source":"a<b && c>d"}`)
	// JSON's own escapes stay: a newline, a quote, U+2028.
	b, err = encode("\"\n\u2028")
	assert.NilError(t, err)
	assert.Equal(t, string(b), `{"source":"\"\n\u2028"}`)
}

func TestDecodeSource(t *testing.T) {
	_, err := DecodeSource(nil, true)
	assert.Error(t, err, `missing field "source"`)
	_, err = DecodeSource([]byte(`1`), true)
	assert.Error(t, err, `"source" must be a string`)
	src, err := DecodeSource([]byte(`"\u003c>"`), true)
	assert.NilError(t, err)
	assert.Equal(t, src, "<>")
}

func TestReadRefusesOversize(t *testing.T) {
	src, err := Read(strings.NewReader("1+2"))
	assert.NilError(t, err)
	assert.Equal(t, src, "1+2")
	// A stream: read up to the bound, its size unknown.
	_, err = Read(strings.NewReader(strings.Repeat("x", 1<<20)))
	assert.Error(t, err, "request: more than 65536 bytes encoded, over the limit of 65536")
	assert.Assert(t, errors.Is(err, ErrTooLarge))
	// A regular file says its size, from where it is read to its end.
	path := filepath.Join(t.TempDir(), "big.star")
	assert.NilError(t, os.WriteFile(path, []byte(strings.Repeat("x", 1<<20)), 0o600))
	f, err := os.Open(path)
	assert.NilError(t, err)
	defer f.Close()
	_, err = Read(f)
	assert.Error(t, err, "request: the program is 1048576 bytes, over the limit of 65536")
	assert.Assert(t, errors.Is(err, ErrTooLarge))
	_, err = f.Seek(1000, 0)
	assert.NilError(t, err)
	_, err = Read(f)
	assert.Error(t, err, "request: the program is 1047576 bytes, over the limit of 65536")
}
