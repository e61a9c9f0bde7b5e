package batchline

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// TestLineOverTheBoundNamesItsPart: a batch line past the line bound is
// refused naming the field the bound is passed in, with the id when it
// came whole before the cut, from the prefix a reader keeps.
func TestLineOverTheBoundNamesItsPart(t *testing.T) {
	long := strings.Repeat("a", limits.MaxLineBytes)
	const limit = "request: the line is more than 69632 bytes, over the limit of 65536"
	in := func(part string) string {
		return "request: the line is more than 69632 bytes (cut in " + part + "), over the limit of 65536"
	}
	for _, tc := range []struct {
		line, id, want string
	}{
		{`{"id":1,"source":"1","stdin":"` + long, "1", in("stdin")},
		{`{"id":"s","source":"` + long, `"s"`, in("the program")},
		{`{"source":"1","files":{"x.txt":"` + long, "", in(`file "x.txt"`)},
		{`{"id": -2.5 , "files" : { "a":"b", "y.txt" : "` + long, "-2.5", in(`file "y.txt"`)},
		{`{"id":4,"files":{"` + long, "4", in("the files")},       // in a name
		{`{"id":4,"files":{"a/b":"` + long, "4", in("the files")}, // a name the rules refuse
		{`{"id":5,"id":6,"stdin":"` + long, "", limit},            // a key twice: no id
		{`{"id":[7],"stdin":"` + long, "", in("stdin")},           // no id of a shape a result carries
		{`{"id":8,"bogus":"` + long, "8", limit},                  // a field of no request
		{`{"id":9,"` + long, "9", limit},                          // in a key
		{`{"id":"` + long, "", limit},                             // in the id
		{`["` + long, "", limit},                                  // no object
		{`{"id":1,"source":"1"}` + long, "1", limit},              // after the object
		{"{\"id\":\"\xff\",\"stdin\":\"" + long, "", in("stdin")}, // an id not UTF-8
	} {
		b := []byte(tc.line)[:limits.MaxLineBytes+1] // what the reader keeps
		id, _, err := Decode(b, false)
		assert.Check(t, is.Error(err, tc.want), "%.40q", tc.line)
		assert.Check(t, is.Equal(string(id), tc.id), "%.40q", tc.line)
	}
}
