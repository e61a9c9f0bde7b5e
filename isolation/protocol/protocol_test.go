package protocol

import (
	"strings"
	"testing"
	"unicode/utf8"

	"gotest.tools/v3/assert"

	"github.com/synapse-lang/synapse-isolation/limits"
)

func TestDecodeRequest(t *testing.T) {
	r, err := DecodeRequest([]byte(` {"source": "1+2\n"} `), true)
	assert.NilError(t, err)
	assert.Equal(t, r.Source, "1+2\n")
	r, err = DecodeRequest([]byte(`{"source":"\u00e9\ud83d\ude00"}`), true)
	assert.NilError(t, err)
	assert.Equal(t, r.Source, "é😀")
	// Exec mode passes a NUL byte to the interpreter as it is.
	r, err = DecodeRequest([]byte(`{"source":"a\u0000b"}`), false)
	assert.NilError(t, err)
	assert.Equal(t, r.Source, "a\x00b")
}

func TestDecodeRequestStdinAndFiles(t *testing.T) {
	r, err := DecodeRequest([]byte(`{"source":"print(1)","stdin":"3 4\n\u0000","files":{"helper.py":"x = 1\n","data.txt":""}}`), false)
	assert.NilError(t, err)
	assert.DeepEqual(t, r, Request{Source: "print(1)", Stdin: "3 4\n\x00", Files: map[string]string{"helper.py": "x = 1\n", "data.txt": ""}})
	// The host's encoding is the frame the runner decodes.
	b, err := EncodeRequest(r, false)
	assert.NilError(t, err)
	r2, err := DecodeRequest(b, false)
	assert.NilError(t, err)
	assert.DeepEqual(t, r2, r)
	// Exec mode passes a file's NUL as data; Starlark refuses it in a module.
	_, err = DecodeRequest([]byte(`{"source":"1","files":{"d":"\u0000"}}`), false)
	assert.NilError(t, err)
}

func TestDecodeRequestRejects(t *testing.T) {
	big := `{"source":"` + strings.Repeat("x", limits.MaxRequestBytes) + `"}`
	for in, want := range map[string]string{
		``:                                      `request: want a JSON object with "source", "stdin", "files", "binary", "collect", "tests", "compare", "role" and "stop_ms"`,
		`null`:                                  `request: want a JSON object with "source", "stdin", "files", "binary", "collect", "tests", "compare", "role" and "stop_ms"`,
		`[]`:                                    `request: want a JSON object with "source", "stdin", "files", "binary", "collect", "tests", "compare", "role" and "stop_ms"`,
		`"x"`:                                   `request: want a JSON object with "source", "stdin", "files", "binary", "collect", "tests", "compare", "role" and "stop_ms"`,
		`{}`:                                    `request: missing field "source"`,
		`{"source":"a","extra":1}`:              `request: unknown field "extra" (want "source", "stdin", "files", "binary", "collect", "tests", "compare", "role" and "stop_ms" only)`,
		`{"Source":"a"}`:                        `request: unknown field "Source" (want "source", "stdin", "files", "binary", "collect", "tests", "compare", "role" and "stop_ms" only)`,
		`{"source":"a","source":"b"}`:           `request: duplicate field "source"`,
		`{"source":1}`:                          `request: "source" must be a string`,
		`{"source":null}`:                       `request: "source" must be a string`,
		`{"source":"a"} {"source":"b"}`:         "request: trailing data after the JSON value",
		`{"source":"a"}x`:                       "request: trailing data after the JSON value",
		`{"source":"a"`:                         "request: unexpected EOF",
		"{\"source\":\"\xff\"}":                 "request: invalid UTF-8 at offset 11",
		`{"source":"1\u0000+2"}`:                "request: source: NUL byte at offset 1 (Starlark would stop reading there)",
		big:                                     "request: more than 65536 bytes encoded, over the limit of 65536",
		`{"source":"a","stdin":1}`:              `request: "stdin" must be a string`,
		`{"source":"a","files":[]}`:             `request: "files" must be an object of names to strings`,
		`{"source":"a","files":{"x":1}}`:        `request: "files" must be an object of names to strings`,
		`{"source":"a","files":{"a/b":""}}`:     `request: file name "a/b": must be a plain name, without /`,
		`{"source":"a","files":{"..":""}}`:      `request: file name "..": must be a plain name, without ..`,
		`{"source":"a","files":{"-x":""}}`:      `request: file name "-x": must not begin with -`,
		`{"source":"a","files":{"":""}}`:        "request: file name: must not be empty",
		`{"source":"a","files":{"a\u0000":""}}`: `request: file name "a\x00": must not hold a NUL or another control character`,
		`{"source":"a","files":{"main":""}}`:    `request: file name "main": taken by the program's own source in exec mode`,
		`{"source":"a","files":{"x":"1","x":"2"}}`:   `request: duplicate field "x" in "files"`,
		`{"source":"a","files":{"m.star":"\u0000"}}`: `request: file "m.star": NUL byte at offset 0 (Starlark would stop reading there)`,
		"{\"source\":\"a\",\"stdin\":\"ok\xff\"}":    "request: invalid UTF-8 at offset 25",
	} {
		_, err := DecodeRequest([]byte(in), true)
		assert.Check(t, err != nil && err.Error() == want, "%.40q: got %v, want %s", in, err, want)
	}
}

func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{`{"source":"1+2"}`, `{"source":"a","x":1}`, `{}`, `[`, "{\"source\":\"\xff\"}", `{"source":"\ud800"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeRequest(b, true)
		if err != nil {
			return
		}
		// Whatever decodes is valid UTF-8 and re-encodes losslessly (when the
		// re-encoding, which escapes U+2028 and U+2029, still fits the limit).
		assert.Assert(t, utf8.ValidString(r.Source))
		enc, err := EncodeRequest(Request{Source: r.Source}, true)
		if err == nil {
			r2, err := DecodeRequest(enc, true)
			assert.NilError(t, err)
			assert.Equal(t, r2.Source, r.Source)
		}
	})
}

// TestEncodeDecodes: the host's request frame (EncodeRequest, which leaves
// <, > and & unescaped) is the frame DecodeRequest reads, and either
// spelling of them decodes to the same source.
func TestEncodeDecodes(t *testing.T) {
	for _, src := range []string{"1+2", strings.Repeat("<", 15000), "a < b && c > d\n\"é\"\u2028", "print('\\u003c')"} {
		b, err := EncodeRequest(Request{Source: src}, true)
		assert.NilError(t, err)
		assert.Check(t, !strings.Contains(string(b), `\u003c`) || strings.Contains(src, `\u003c`), "escaped: %.40s", b)
		r, err := DecodeRequest(b, true)
		assert.NilError(t, err)
		assert.Equal(t, r.Source, src)
	}
	r, err := DecodeRequest([]byte(`{"source":"\u003c\u003e\u0026<>&"}`), true)
	assert.NilError(t, err)
	assert.Equal(t, r.Source, "<>&<>&")
}
