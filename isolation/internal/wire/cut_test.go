package wire

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
	const limit = "request: more than 65536 bytes encoded, the limit"
	in := ": the line passes 69632 bytes in "
	for _, tc := range []struct {
		line, id, want string
	}{
		{`{"id":1,"source":"1","stdin":"` + long, "1", limit + in + `"stdin"`},
		{`{"id":"s","source":"` + long, `"s"`, limit + in + `"source"`},
		{`{"source":"1","files":{"x.txt":"` + long, "", limit + in + `file "x.txt"`},
		{`{"id": -2.5 , "files" : { "a":"b", "y.txt" : "` + long, "-2.5", limit + in + `file "y.txt"`},
		{`{"id":4,"files":{"` + long, "4", limit + in + `"files"`},           // in a name
		{`{"id":4,"files":{"a/b":"` + long, "4", limit + in + `"files"`},     // a name the rules refuse
		{`{"id":5,"id":6,"stdin":"` + long, "", limit},                       // a key twice: no id
		{`{"id":[7],"stdin":"` + long, "", limit + in + `"stdin"`},           // no id of a shape a result carries
		{`{"id":8,"bogus":"` + long, "8", limit},                             // a field of no request
		{`{"id":9,"` + long, "9", limit},                                     // in a key
		{`{"id":"` + long, "", limit},                                        // in the id
		{`["` + long, "", limit},                                             // no object
		{`{"id":1,"source":"1"}` + long, "1", limit},                         // after the object
		{"{\"id\":\"\xff\",\"stdin\":\"" + long, "", limit + in + `"stdin"`}, // an id not UTF-8
	} {
		b := []byte(tc.line)[:limits.MaxLineBytes+1] // what the reader keeps
		id, _, err := DecodeLine(b, false)
		assert.Check(t, is.Error(err, tc.want), "%.40q", tc.line)
		assert.Check(t, is.Equal(string(id), tc.id), "%.40q", tc.line)
	}
}
