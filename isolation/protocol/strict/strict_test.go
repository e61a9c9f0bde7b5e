package strict

import (
	"testing"

	"gotest.tools/v3/assert"
)

// TestDecode: the rule on a frame of its own type; the frames' own cases
// are their decoders' tests (package protocol, package batchline).
func TestDecode(t *testing.T) {
	type inner struct {
		N int `json:"n"`
	}
	type frame struct {
		A string           `json:"a"`
		B *inner           `json:"b"`
		M map[string]inner `json:"m"`
	}
	var f frame
	assert.NilError(t, Decode([]byte(` {"a":"x","b":{"n":1},"m":{"k":{"n":2}}} `), &f))
	assert.Equal(t, f.B.N, 1)
	assert.Equal(t, f.M["k"].N, 2)
	for in, want := range map[string]string{
		`[]`:                        `want a JSON object with "a", "b" and "m"`,
		`{"a":"x","a":"y"}`:         `duplicate field "a"`,
		`{"A":"x"}`:                 `unknown field "A" (want "a", "b" and "m" only)`,
		`{"b":{"n":1,"x":2}}`:       `unknown field "x" in "b" (want "n" only)`,
		`{"m":{"k":{"n":1,"n":2}}}`: `duplicate field "n" in "m.k"`,
		`{"a":"x"} 1`:               "trailing data after the JSON value",
		"{\"a\":\"\xff\"}":          "invalid UTF-8 at offset 6",
	} {
		var f frame
		err := Decode([]byte(in), &f)
		assert.Check(t, err != nil && err.Error() == want, "%q: got %v, want %s", in, err, want)
	}
}
