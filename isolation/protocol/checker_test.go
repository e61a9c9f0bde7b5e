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

// TestCheckedRules: a checked frame and a check need tests and no
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
	frame := func(role Role, r Request) Frame {
		r.Source = "x"
		return Frame{Request: r, role: role}
	}
	assert.NilError(t, CheckRules(frame(RoleChecked, Request{Tests: tests(nil)}), false))
	assert.NilError(t, CheckRules(frame(RoleCheck, Request{Tests: tests(size(0), size(limits.MaxCheckedOutput))}), false))
	for want, f := range map[string]Frame{
		"there are none":                                frame(RoleCheck, Request{}),
		"with a checker, the checker compares":          frame(RoleChecked, Request{Compare: "exact", Tests: tests(nil)}),
		`test "t": output_bytes is a check's`:           frame(RoleChecked, Request{Tests: tests(size(1))}),
		`test "t": output_bytes is a check's, of the`:   frame(RoleCompare, Request{Tests: tests(size(1))}),
		`test "tt": a check needs the program's output`: frame(RoleCheck, Request{Tests: tests(size(1), nil)}),
		`output_bytes -1 is not within`:                 frame(RoleCheck, Request{Tests: tests(size(-1))}),
		`output_bytes 8388609 is not within`:            frame(RoleCheck, Request{Tests: tests(size(limits.MaxCheckedOutput + 1))}),
	} {
		assert.Check(t, is.ErrorContains(CheckRules(f, false), want))
	}
	many := make([]*int64, limits.MaxCheckedTotal/limits.MaxCheckedOutput+1)
	for i := range many {
		many[i] = size(limits.MaxCheckedOutput)
	}
	assert.Check(t, is.ErrorContains(CheckRules(frame(RoleCheck, Request{Tests: tests(many...)}), false), "over the 268435456 allowed"))
}

// TestFramesOfAGrader: a request's Grader gives its program's frame its
// role, and the grader's own run its own; an interactive program's tests
// carry their names alone, and a grader's tests each have an answer.
func TestFramesOfAGrader(t *testing.T) {
	tests := []Test{{Name: "a", Stdin: []byte("1"), Expect: []byte("2")}, {Name: "b", Stdin: []byte("3")}}
	for _, c := range []struct {
		grader      Grader
		program     Role
		programData bool
		own         Role
	}{
		{nil, RoleCompare, true, ""},
		{&Checker{Source: "c"}, RoleChecked, true, RoleCheck},
		{&Interactor{Source: "i"}, RoleInteractive, false, RoleInteract},
	} {
		f := ProgramFrame(Request{Source: "p", Tests: tests, Grader: c.grader})
		assert.Check(t, is.Equal(f.Role(), c.program))
		assert.Check(t, is.Equal(len(TestData(f.Tests)) > 0, c.programData), "%s", c.program)
		assert.Check(t, is.DeepEqual([]string{f.Tests[0].Name, f.Tests[1].Name}, []string{"a", "b"}))
		if c.grader == nil {
			continue
		}
		own := GraderFrame(c.grader, tests)
		assert.Check(t, is.Equal(own.Role(), c.own))
		assert.Check(t, is.Equal(own.Source, c.grader.source()))
		assert.Check(t, own.Tests[1].Expect != nil && len(own.Tests[1].Expect) == 0, "an empty answer")
		assert.Check(t, tests[1].Expect == nil, "the caller's tests are left as they were")
	}
}

// TestDecodeFrameRole: a frame's "role" decodes to its Role, held to its
// rules as the frame is read: one of the set, a check's tests with the
// output's size, the program's without; EncodeFrame writes it so.
func TestDecodeFrameRole(t *testing.T) {
	const tests = `"tests":[{"name":"1","stdin_bytes":0,"expect_bytes":0%s}]`
	f, _, err := DecodeFrame([]byte(`{"source":"x",`+fmt.Sprintf(tests, "")+`,"role":"checked"}`), false)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(f.Role(), RoleChecked))
	f, _, err = DecodeFrame([]byte(`{"source":"x","role":"check",`+fmt.Sprintf(tests, `,"output_bytes":3`)+`}`), false)
	assert.NilError(t, err)
	assert.Check(t, f.Role() == RoleCheck && *f.Tests[0].OutputBytes == 3)
	for frame, want := range map[string]string{
		`{"source":"x","role":"",` + fmt.Sprintf(tests, "") + `}`:        `request: "role" must be one of "checked", "check", "interactive" and "interact"`,
		`{"source":"x","role":"compare",` + fmt.Sprintf(tests, "") + `}`: `request: "role" must be one of "checked", "check", "interactive" and "interact"`,
		`{"source":"x","role":true,` + fmt.Sprintf(tests, "") + `}`:      `request: "role" must be a string`,
		`{"source":"x","role":null,` + fmt.Sprintf(tests, "") + `}`:      `request: "role" must be a string`,
		`{"source":"x","role":"check",` + fmt.Sprintf(tests, "") + `}`:   `request: test "1": a check needs the program's output (output_bytes)`,
		`{"source":"x",` + fmt.Sprintf(tests, `,"output_bytes":3`) + `}`: `request: test "1": output_bytes is a check's, of the program's output`,
		`{"source":"x","role":"checked"}`:                                `request: checker: a checker grades tests, and there are none`,
	} {
		_, _, err := DecodeFrame([]byte(frame), false)
		assert.Check(t, err != nil && err.Error() == want, "%s: got %v", frame, err)
	}
	for _, role := range append(roles, RoleCompare) {
		f := Frame{Request: Request{Source: "x", Tests: []Test{{Name: "1"}}}, role: role}
		if role == RoleCheck {
			n := int64(0)
			f.Tests[0].OutputBytes = &n
		}
		b, err := EncodeFrame(f, false)
		assert.NilError(t, err, role)
		back, _, err := DecodeFrame(b, false)
		assert.NilError(t, err, role)
		assert.Check(t, is.Equal(back.Role(), role), string(b))
		assert.Check(t, is.Equal(strings.Contains(string(b), `"role"`), role != RoleCompare), string(b))
	}
}
