package interp

import (
	"context"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

func eval(src string) protocol.Response { return Eval(context.Background(), src, Options{}) }

func TestEvalResults(t *testing.T) {
	for _, tc := range []struct {
		src, result, typ string
		repr             bool
	}{
		{"1+2", "3", "int", false},
		{"1 << 100", "1267650600228229401496703205376", "int", false},
		{"1/4", "0.25", "float", false},
		{"float('inf')", `"+inf"`, "float", true},
		{`"hé\n"`, `"hé\n"`, "string", false},
		{"True", "true", "bool", false},
		{"None", "null", "NoneType", false},
		{"[1, (2, 3), {'a': [None]}]", `[1,[2,3],{"a":[null]}]`, "list", false},
		{"{1: 2}", `"{1: 2}"`, "dict", true},
		{"set([1])", `"set([1])"`, "set", true},
		{"def f(): pass\nf", `"<function f>"`, "function", true},
		{"l = [1]\nl.append(l)\nl", `"[1, [...]]"`, "list", true},
		{"json.encode({'x': math.floor(2.5)})", `"{\"x\":2}"`, "string", false},
	} {
		r := eval(tc.src)
		assert.Check(t, r.OK, "%s: %+v", tc.src, r.Error)
		assert.Check(t, is.Equal(string(r.Result), tc.result), tc.src)
		assert.Check(t, is.Equal(r.ResultType, tc.typ), tc.src)
		assert.Check(t, is.Equal(r.ResultRepr, tc.repr), tc.src)
	}
}

func TestEvalNoResult(t *testing.T) {
	r := eval("x = 1")
	assert.Assert(t, r.OK)
	assert.Equal(t, string(r.Result), "null")
	assert.Equal(t, r.ResultType, "")
}

func TestEvalPrintThenResult(t *testing.T) {
	r := eval("print(3)\n1+2")
	assert.Assert(t, r.OK)
	assert.Equal(t, r.Output, "3\n")
	assert.Equal(t, r.OutputBytes, int64(2))
	assert.Equal(t, string(r.Result), "3")
}

func TestEvalDialect(t *testing.T) {
	src := `
n = 0
while n < 10:
    n += 1
def fact(k):
    return 1 if k < 2 else k * fact(k - 1)
s = set([1, 2, 2])
if len(s) == 2:
    n = fact(n)
n
`
	r := eval(src)
	assert.Assert(t, r.OK, "%+v", r.Error)
	assert.Equal(t, string(r.Result), "3628800")
}

func TestEvalErrors(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want protocol.Error
	}{
		{"1 +", protocol.Error{Type: "syntax", Message: "got end of file, want primary expression", Line: 1, Col: 4}},
		{"x = 1\ny", protocol.Error{Type: "syntax", Message: "undefined: y", Line: 2, Col: 1}},
		{"x = 1\n1 // 0", protocol.Error{Type: "runtime", Message: "floored division by zero", Line: 2, Col: 3}},
		{"def f():\n  fail('boom')\nf()", protocol.Error{Type: "runtime", Message: "fail: boom", Line: 2, Col: 7}},
	} {
		r := eval(tc.src)
		assert.Check(t, !r.OK, tc.src)
		assert.Check(t, r.Error != nil && *r.Error == tc.want, "%s: %+v", tc.src, r.Error)
	}
}

func TestEvalOutputCap(t *testing.T) {
	r := Eval(context.Background(), "for i in range(100):\n  print('é' * 5)", Options{OutputLimit: 16})
	assert.Assert(t, r.OK)
	assert.Equal(t, r.OutputBytes, int64(1100))
	assert.Assert(t, r.OutputTruncated)
	assert.Assert(t, len(r.Output) <= 16)
	assert.Equal(t, r.Output, "ééééé\néé") // the cut é is dropped, not replaced past the cap

	r = eval("print('x' * 70000)")
	assert.Equal(t, len(r.Output), 65536)
	assert.Equal(t, r.OutputBytes, int64(70001))
	assert.Assert(t, r.OutputTruncated)
}

func TestCappedBufferInvalidUTF8(t *testing.T) {
	c := NewCappedBuffer(4)
	_, _ = c.Write([]byte("a\xffb"))
	out, n, trunc := c.Result()
	assert.Equal(t, out, "a\uFFFD")
	assert.Equal(t, n, int64(3))
	assert.Assert(t, !trunc)

	c = NewCappedBuffer(8)
	for _, chunk := range []string{"ab", "", "cdefgh", "ij"} {
		_, _ = c.Write([]byte(chunk))
	}
	out, n, trunc = c.Result()
	assert.Equal(t, out, "abcdefgh")
	assert.Equal(t, n, int64(10))
	assert.Assert(t, trunc)
}

func TestEvalCancel(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	r := Eval(ctx, "while True:\n  pass", Options{})
	assert.Assert(t, time.Since(start) < 2*time.Second)
	assert.Assert(t, !r.OK)
	assert.Equal(t, r.Error.Type, "timeout")
	assert.Assert(t, strings.Contains(r.Error.Message, "deadline exceeded"), r.Error.Message)
}
