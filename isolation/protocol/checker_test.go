package protocol

import (
	"fmt"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// TestOutputHeaderRoundTrip: the line OutputHeader writes is the one
// ParseOutputHeader reads; every other spelling is refused.
func TestOutputHeaderRoundTrip(t *testing.T) {
	line := OutputHeader(12, 345)
	assert.Check(t, is.Equal(string(line), "=out 12 345\n"))
	assert.Check(t, IsOutputFrame(line[0]) && !IsOutputFrame('{'))
	i, n, err := ParseOutputHeader(line[:len(line)-1])
	assert.NilError(t, err)
	assert.Check(t, i == 12 && n == 345)
	for _, bad := range []string{"=out 1", "=out 1 2 3", "=out -1 2", "=out 1 -2", "=out 01 2", "=out 1 +2", "=out  1 2", "out 1 2", "=out 1 2 "} {
		_, _, err := ParseOutputHeader([]byte(bad))
		assert.Check(t, is.ErrorIs(err, ErrOutputHeader), "%q", bad)
	}
	over := OutputHeader(0, limits.MaxCheckedOutput+1)
	_, _, err = ParseOutputHeader(over[:len(over)-1])
	assert.Check(t, is.ErrorContains(err, "over the"))
}

// TestCheckedRules: a checked request and a check need tests and no
// compare mode; only a check, and each of its tests, gives an output
// size, within the bounds.
func TestCheckedRules(t *testing.T) {
	size := func(n int64) *int64 { return &n }
	tests := func(sizes ...*int64) []Test {
		var ts []Test
		for i, s := range sizes {
			ts = append(ts, Test{Name: strings.Repeat("t", i+1), Stdin: []byte("1"), OutputBytes: s})
		}
		return ts
	}
	assert.NilError(t, CheckRequest(Request{Source: "x", Checked: true, Tests: tests(nil)}, false))
	assert.NilError(t, CheckRequest(Request{Source: "x", Check: true, Tests: tests(size(0), size(limits.MaxCheckedOutput))}, false))
	for want, r := range map[string]Request{
		"not both":                                      {Checked: true, Check: true, Tests: tests(nil)},
		"there are none":                                {Check: true},
		"with a checker, the checker compares":          {Checked: true, Compare: "exact", Tests: tests(nil)},
		`test "t": output_bytes is a check's`:           {Checked: true, Tests: tests(size(1))},
		`test "tt": a check needs the program's output`: {Check: true, Tests: tests(size(1), nil)},
		`output_bytes -1 is not within`:                 {Check: true, Tests: tests(size(-1))},
		`output_bytes 8388609 is not within`:            {Check: true, Tests: tests(size(limits.MaxCheckedOutput + 1))},
	} {
		r.Source = "x"
		assert.Check(t, is.ErrorContains(CheckRequest(r, false), want))
	}
	many := make([]*int64, limits.MaxCheckedTotal/limits.MaxCheckedOutput+1)
	for i := range many {
		many[i] = size(limits.MaxCheckedOutput)
	}
	assert.Check(t, is.ErrorContains(CheckRequest(Request{Source: "x", Check: true, Tests: tests(many...)}, false), "over the 268435456 allowed"))
}

// TestDecodeFrameFlags: a frame's "checked" and "check" decode to the
// request's flags, held to their rules as the frame is read: only true
// when present, a check's tests with the output's size, the program's
// without.
func TestDecodeFrameFlags(t *testing.T) {
	const tests = `"tests":[{"name":"1","stdin_bytes":0,"expect_bytes":0%s}]`
	req, _, err := DecodeFrame([]byte(`{"source":"x","checked":true,`+fmt.Sprintf(tests, "")+`}`), false)
	assert.NilError(t, err)
	assert.Check(t, req.Checked && !req.Check)
	req, _, err = DecodeFrame([]byte(`{"source":"x","check":true,`+fmt.Sprintf(tests, `,"output_bytes":3`)+`}`), false)
	assert.NilError(t, err)
	assert.Check(t, req.Check && !req.Checked && *req.Tests[0].OutputBytes == 3)
	for frame, want := range map[string]string{
		`{"source":"x","checked":false,` + fmt.Sprintf(tests, "") + `}`:             `request: "checked" must be true when present`,
		`{"source":"x","check":1,` + fmt.Sprintf(tests, "") + `}`:                   `request: "check" must be true when present`,
		`{"source":"x","check":true,` + fmt.Sprintf(tests, "") + `}`:                `request: test "1": a check needs the program's output (output_bytes)`,
		`{"source":"x",` + fmt.Sprintf(tests, `,"output_bytes":3`) + `}`:            `request: test "1": output_bytes is a check's, of the program's output`,
		`{"source":"x","checked":true,"check":true,` + fmt.Sprintf(tests, "") + `}`: `request: checked and check: a request is the program's or its checker's, not both`,
	} {
		_, _, err := DecodeFrame([]byte(frame), false)
		assert.Check(t, err != nil && err.Error() == want, "%s: got %v", frame, err)
	}
}
