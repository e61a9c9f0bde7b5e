package protocol

import (
	"bytes"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// TestTestsRules: a judge's request is for exec mode, with named tests
// given once, their data within limits.MaxTestData, no stdin of its own.
func TestTestsRules(t *testing.T) {
	ok := []Test{{Name: "1", Stdin: []byte("1 2\n"), Expect: []byte("3\n")}, {Name: "sample two", Stdin: []byte{}}}
	assert.NilError(t, CheckRequest(Request{Source: "x", Tests: ok, Compare: CompareExact}, false))
	big := make([]byte, limits.MaxTestData/2)
	for _, tc := range []struct {
		in   Request
		want string
	}{
		{Request{Source: "x", Tests: ok}, ""},
		{Request{Source: "x", Tests: ok}, "starlark"},
		{Request{Source: "x", Tests: []Test{}}, "tests: none given"},
		{Request{Source: "x", Tests: ok, Stdin: "1"}, "stdin: a request with tests gives each test its own stdin"},
		{Request{Source: "x", Compare: "lines"}, "compare: there are no tests to compare"},
		{Request{Source: "x", Tests: ok, Compare: "fuzzy"}, `compare: must be "lines", "exact" or "float:ABS[:REL]" (got "fuzzy")`},
		{Request{Source: "x", Tests: []Test{{Name: "a"}, {Name: "a"}}}, `test "a": given twice`},
		{Request{Source: "x", Tests: []Test{{Name: ""}}}, "test: a test needs a name"},
		{Request{Source: "x", Tests: []Test{{Name: " a"}}}, `test " a": the name starts or ends with a space`},
		{Request{Source: "x", Tests: []Test{{Name: "a\nb"}}}, `test "a\nb": the name has a control character`},
		{Request{Source: "x", Tests: []Test{{Name: strings.Repeat("n", 65)}}}, "names are at most 64 bytes"},
		{Request{Source: "x", Tests: []Test{{Name: "1", Stdin: big}, {Name: "2", Stdin: big[:1], Expect: big}}},
			`test "2": its stdin and expected output take the tests' data to 16777217 bytes or more, over the limit of 16777216`},
		{Request{Source: "x", Tests: make([]Test, limits.MaxTests+1)}, "tests: 257 tests, more than the 256 allowed"},
	} {
		starlark := tc.want == "starlark"
		err := CheckRequest(tc.in, starlark)
		switch tc.want {
		case "":
			assert.NilError(t, err)
		case "starlark":
			assert.Error(t, err, "tests: for an interpreter or a compiled language (exec mode), not Starlark")
		default:
			assert.ErrorContains(t, err, tc.want)
		}
	}
}

// TestTestDataTravelsAfterTheRequest: the frame carries the sizes, the
// bytes follow in order, and ReadTestData takes back exactly them.
func TestTestDataTravelsAfterTheRequest(t *testing.T) {
	tests := []Test{{Name: "1", Stdin: []byte("in1"), Expect: []byte("out1")}, {Name: "2", Stdin: []byte("in2")}, {Name: "3", Expect: []byte{}}}
	b, err := EncodeRequest(Request{Source: "x", Tests: tests}, false)
	assert.NilError(t, err)
	assert.Equal(t, string(b), `{"source":"x","tests":[{"name":"1","stdin_bytes":3,"expect_bytes":4},{"name":"2","stdin_bytes":3},{"name":"3","stdin_bytes":0,"expect_bytes":0}]}`)
	data := TestData(tests)
	assert.Equal(t, string(data), "in1out1in2")

	in, err := DecodeRequest(b, false)
	assert.NilError(t, err)
	assert.NilError(t, ReadTestData(bytes.NewReader(append(data, "next"...)), in.Tests))
	assert.Equal(t, string(in.Tests[0].Expect), "out1")
	assert.Equal(t, string(in.Tests[1].Stdin), "in2")
	assert.Assert(t, in.Tests[1].Expect == nil, "no expected output stays none")
	assert.Assert(t, in.Tests[2].Expect != nil && len(in.Tests[2].Expect) == 0, "an empty expected output is one")
	assert.ErrorContains(t, ReadTestData(bytes.NewReader(data[:5]), in.Tests), `test "1": reading its expected output (4 bytes)`)

	_, err = DecodeRequest([]byte(`{"source":"x","tests":[{"name":"1","stdin_bytes":-1}]}`), false)
	assert.Error(t, err, `request: test "1": stdin_bytes must not be negative`)
	_, err = DecodeRequest([]byte(`{"source":"x","tests":[{"name":"1","stdin_bytes":16777216,"expect_bytes":1}]}`), false)
	assert.ErrorContains(t, err, "over the limit of 16777216")
}
