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

func eval(src string) Result { return Eval(context.Background(), src, Options{}) }

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
		t.Run(tc.src, func(t *testing.T) {
			r := eval(tc.src)
			assert.Check(t, r.Err == nil, "%+v", r.Err)
			assert.Check(t, is.Equal(string(r.Value), tc.result))
			assert.Check(t, is.Equal(r.Type, tc.typ))
			assert.Check(t, is.Equal(r.Repr, tc.repr))
		})
	}
}

func TestEvalNoResult(t *testing.T) {
	r := eval("x = 1")
	assert.Assert(t, r.Err == nil)
	assert.Assert(t, r.Value == nil)
	assert.Equal(t, r.Type, "")
}

func TestEvalPrintThenResult(t *testing.T) {
	r := eval("print(3)\n1+2")
	assert.Assert(t, r.Err == nil)
	assert.Equal(t, r.Output, "3\n")
	assert.Equal(t, r.OutputBytes, int64(2))
	assert.Equal(t, string(r.Value), "3")
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
	assert.Assert(t, r.Err == nil, "%+v", r.Err)
	assert.Equal(t, string(r.Value), "3628800")
}

func TestEvalErrors(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want Error
	}{
		{"1 +", Error{Kind: Syntax, Msg: "got end of file, want primary expression", Line: 1, Col: 4}},
		{"x = 1\ny", Error{Kind: Syntax, Msg: "undefined: y", Line: 2, Col: 1}},
		{"x = 1\n1 // 0", Error{Kind: Runtime, Msg: "floored division by zero", Line: 2, Col: 3}},
		{"def f():\n  fail('boom')\nf()", Error{Kind: Runtime, Msg: "fail: boom", Line: 2, Col: 7}},
	} {
		t.Run(tc.src, func(t *testing.T) {
			r := eval(tc.src)
			assert.Check(t, r.Err != nil && *r.Err == tc.want, "%+v", r.Err)
			assert.Check(t, r.Value == nil)
		})
	}
}

func TestEvalOutputCap(t *testing.T) {
	r := Eval(context.Background(), "for i in range(100):\n  print('é' * 5)", Options{OutputLimit: 64})
	assert.Assert(t, r.Err == nil)
	assert.Equal(t, r.OutputBytes, int64(1100))
	assert.Assert(t, r.OutputTruncated)
	assert.Assert(t, len(r.Output) <= 64)
	// Head and tail, each cut é dropped, not replaced past the cap.
	assert.Equal(t, r.Output, "ééééé\nééé\n[... 1067 bytes dropped ...]\néé\nééééé\n")

	r = eval("print('x' * 70000)")
	assert.Assert(t, len(r.Output) <= 65536)
	assert.Equal(t, r.OutputBytes, int64(70001))
	assert.Assert(t, r.OutputTruncated)
	assert.Assert(t, strings.HasSuffix(r.Output, strings.Repeat("x", 32000)+"\n"), "the tail stays")
	assert.Assert(t, strings.Contains(r.Output, "x\n[... ") && strings.Contains(r.Output, " bytes dropped ...]\nx"), "the marker names the bytes dropped")
}

func TestEvalCancel(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	r := Eval(ctx, "while True:\n  pass", Options{})
	assert.Assert(t, time.Since(start) < 2*time.Second)
	assert.Assert(t, r.Err != nil)
	assert.Equal(t, r.Err.Kind, Cancelled)
	assert.Assert(t, strings.Contains(r.Err.Msg, "deadline exceeded"), r.Err.Msg)
}

// TestWire: every failure kind has its wire type, the one spelling of the
// runner and of the in-process eval.
func TestWire(t *testing.T) {
	for kind, want := range map[ErrorKind]string{Syntax: "syntax", Runtime: "runtime", Cancelled: "timeout"} {
		e := (&Error{Kind: kind, Msg: "m", Line: 2, Col: 3}).Wire()
		assert.DeepEqual(t, *e, protocol.Error{Type: want, Message: "m", Line: 2, Col: 3})
	}
}
