package interp

import (
	"context"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestStdinIsPredeclared(t *testing.T) {
	r := Eval(context.Background(), "n = 0\nfor x in stdin.split():\n  n += int(x)\nn", Options{Stdin: "3 4\n5\n"})
	assert.Check(t, r.Err == nil, "%+v", r.Err)
	assert.Check(t, is.Equal(string(r.Value), "12"))
	r = Eval(context.Background(), "stdin", Options{})
	assert.Check(t, is.Equal(string(r.Value), `""`), "empty without --stdin")
}

func TestLoadRunsAFileOnce(t *testing.T) {
	files := map[string]string{
		"lib.star":  "print('lib runs')\ndef double(x):\n  return 2 * x\nn = len(stdin)\n",
		"more.star": "load('lib.star', 'double')\ndef quad(x):\n  return double(double(x))\n",
	}
	r := Eval(context.Background(), "load('lib.star', 'double', 'n')\nload('more.star', 'quad')\n[double(2), quad(3), n]",
		Options{Stdin: "abc", Files: files})
	assert.Check(t, r.Err == nil, "%+v", r.Err)
	assert.Check(t, is.Equal(string(r.Value), "[4,12,3]"))
	assert.Check(t, is.Equal(r.Output, "lib runs\n"), "a module runs once, whoever loads it")
}

func TestLoadRefuses(t *testing.T) {
	for _, tc := range []struct {
		src   string
		files map[string]string
		want  string
	}{
		{"load('nope.star', 'x')", nil, "cannot load nope.star: no such file (give it with --from-file)"},
		{"load('a.star', 'x')", map[string]string{"a.star": "load('b.star', 'y')\nx = 1", "b.star": "load('a.star', 'x')\ny = 1"}, "cannot load a.star: a cycle of loads"},
		{"load('a.star', 'x')", map[string]string{"a.star": "x = ("}, "cannot load a.star: a.star:1:6: got end of file"},
		{"load('a.star', 'x')", map[string]string{"a.star": "x = 1 // 0"}, "floored division by zero"},
		{"load('a.star', 'y')", map[string]string{"a.star": "x = 1"}, "load: name y not found in module a.star"},
	} {
		r := Eval(context.Background(), tc.src, Options{Files: tc.files})
		assert.Assert(t, r.Err != nil, tc.src)
		assert.Check(t, strings.Contains(r.Err.Msg, tc.want), "%s: %s", tc.src, r.Err.Msg)
	}
}
