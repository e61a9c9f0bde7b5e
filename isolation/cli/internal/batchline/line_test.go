package batchline

import (
	"errors"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// TestDecode: a batch line is decoded by the same rules, with its id.
func TestDecode(t *testing.T) {
	id, r, err := Decode([]byte(`{"id": 7, "source": "1+2"}`), true)
	assert.NilError(t, err)
	assert.Equal(t, string(id), "7")
	assert.Equal(t, r.Source, "1+2")
	for in, want := range map[string]string{
		`{"id":"a","source":"x","more":1}`: `unknown field "more" (want "id", "source", "stdin", "files", "collect", "tests", "compare", "checker" and "interactor" only)`,
		`{"id":true,"source":"x"}`:         `"id" must be a string or a number`,
		`{"id":"a"}`:                       `missing field "source"`,
		"{\"id\":1,\"source\":\"\xc3(\"}":  "invalid UTF-8 at offset 18",
		`{"id":1,"source":"\u0000"}`:       "source: NUL byte at offset 0 (Starlark would stop reading there)",
	} {
		_, _, err := Decode([]byte(in), true)
		assert.Check(t, err != nil && err.Error() == want, "%q: got %v, want %s", in, err, want)
	}
	id, _, err = Decode([]byte(`{"id":"x7","source":1}`), true)
	assert.Check(t, err != nil)
	assert.Check(t, string(id) == `"x7"`, "the id comes back with the refusal: %s", id)

	// Refused by the strict rule itself, the id still comes back: a key
	// twice inside "files", a field unknown; an "id" twice is no id.
	for in, want := range map[string]string{
		`{"id":"dupkey","source":"1","files":{"a":"x","a":"y"}}`: `"dupkey"`,
		`{"source":"1","id":4,"more":true}`:                      `4`,
		`{"id":"a","id":"b","source":"1"}`:                       ``,
		`{"id":[1],"source":"1","x":1}`:                          ``,
	} {
		id, _, err := Decode([]byte(in), true)
		assert.Check(t, err != nil, in)
		assert.Check(t, string(id) == want, "%s: id %s, want %s", in, id, want)
	}
}

// TestDecodeRefusesDuplicates: a batch line refuses a key twice by the
// rule of every frame (package protocol's TestDecodeRefusesDuplicates).
func TestDecodeRefusesDuplicates(t *testing.T) {
	_, _, err := Decode([]byte(`{"id":1,"source":"1","id":2}`), true)
	assert.Error(t, err, `duplicate field "id"`)
}

// TestDecodeIntoTheRequest: what the line spells its own way (files as
// text or base64 in one object, tests' data inline as text) lands in the
// protocol's request as the frame carries it: Files and Binary apart, the
// tests' bytes, no expected output left nil.
func TestDecodeIntoTheRequest(t *testing.T) {
	_, r, err := Decode([]byte(`{"source":"s","files":{"a.txt":"x","b.bin":{"base64":"AP8="}},"collect":["*.png"],`+
		`"tests":[{"name":"1","stdin":"1 2\n","expect":"3\n"},{"name":"2"}],"compare":"exact"}`), false)
	assert.NilError(t, err)
	assert.DeepEqual(t, r, protocol.Request{
		Source: "s", Files: map[string]string{"a.txt": "x"}, Binary: map[string][]byte{"b.bin": {0, 0xff}}, Collect: []string{"*.png"},
		Tests:   []protocol.Test{{Name: "1", Stdin: []byte("1 2\n"), Expect: []byte("3\n")}, {Name: "2", Stdin: []byte{}}},
		Compare: protocol.CompareExact,
	})
	_, r, err = Decode([]byte(`{"source":"s","files":{}}`), false)
	assert.NilError(t, err)
	assert.DeepEqual(t, r, protocol.Request{Source: "s"})
	for in, want := range map[string]string{
		`{"source":"s","files":{"a":1}}`:                                         `file "a": must be text or {"base64": "..."}`,
		`{"source":"s","files":{"a":{"base64":"%"}}}`:                            `file "a": not base64: illegal base64 data at input byte 0`,
		`{"source":"s","files":[]}`:                                              `"files" must be an object of names to text or {"base64": "..."}`,
		`{"source":"s","stdin":null}`:                                            `"stdin" must be a string`,
		`{"source":"s","collect":"*"}`:                                           `"collect" must be an array of patterns`,
		`{"source":"s","tests":[]}`:                                              `tests: none given (leave it out for a run without tests)`,
		`{"source":"s","files":{"a":"x","a.":{"base64":""}},"collect":["../x"]}`: `collect "../x": must be a plain name or a glob over plain names: must be a plain name, without /`,
	} {
		_, _, err := Decode([]byte(in), false)
		assert.Check(t, err != nil && err.Error() == want, "%s: got %v, want %s", in, err, want)
	}
	_, _, err = Decode([]byte(`{"source":"`+strings.Repeat("x", limits.MaxLineBytes)), false)
	assert.Check(t, errors.Is(err, protocol.ErrTooLarge), "a line over its bound is a request over the limit: %v", err)
}

// TestDecodeChecker: a line's "checker" (or "interactor") is its source
// and image, both strings, its request's grader; any other shape is
// refused naming it, and so is a line with both, or a checker beside a
// compare mode.
func TestDecodeChecker(t *testing.T) {
	const tests = `"tests":[{"name":"1","stdin":"3","expect":""}]`
	_, r, err := Decode([]byte(`{"source":"s",`+tests+`,"checker":{"source":"c","image":"sha256:ab"}}`), false)
	assert.NilError(t, err)
	assert.DeepEqual(t, r.Grader, protocol.Grader(&protocol.Checker{Source: "c", Image: "sha256:ab"}))
	_, r, err = Decode([]byte(`{"source":"s",`+tests+`,"interactor":{"source":"i","image":"sha256:ab"}}`), false)
	assert.NilError(t, err)
	assert.DeepEqual(t, r.Grader, protocol.Grader(&protocol.Interactor{Source: "i", Image: "sha256:ab"}))
	_, r, err = Decode([]byte(`{"source":"s",`+tests+`}`), false)
	assert.NilError(t, err)
	assert.Check(t, r.Grader == nil, "no grader: compared")
	for in, want := range map[string]string{
		`"checker":"c"`:                        `"checker" must be an object {"source": "...", "image": "sha256:..."}`,
		`"checker":{"source":"c"}`:             `"checker" must be an object {"source": "...", "image": "sha256:..."}`,
		`"checker":{"source":"c","image":1}`:   `"checker image" must be a string`,
		`"checker":{"source":"c","x":1}`:       `"checker" must be an object {"source": "...", "image": "sha256:..."}`,
		`"checker":{"source":null,"image":""}`: `"checker source" must be a string`,
		`"checker":{"source":"c","image":"sha256:ab"},"interactor":{"source":"i","image":"sha256:ab"}`: `interactor: a checker beside it: the interactor grades`,
		`"checker":{"source":"c","image":"sha256:ab"},"compare":"exact"`:                               `compare: with a checker, the checker compares`,
	} {
		_, _, err := Decode([]byte(`{"source":"s",`+tests+`,`+in+`}`), false)
		assert.Check(t, err != nil && err.Error() == want, "%s: got %v", in, err)
	}
}
