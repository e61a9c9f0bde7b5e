package protocol

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestLiveHeaderRoundTrip: each kind's line reads back as written, and
// only the kinds asked for are read; every other spelling is refused.
func TestLiveHeaderRoundTrip(t *testing.T) {
	all := []string{LiveReady, LiveIO, LiveShut, LiveDone, LiveGo, LiveIn, LiveEOF, LiveEnd}
	for _, kind := range all {
		line := LiveHeader(kind, 12, 345)
		assert.Check(t, len(line) <= MaxLiveHeader)
		k, i, n, err := ParseLiveHeader(line[:len(line)-1], all...)
		assert.NilError(t, err, kind)
		wantN := 0
		if kind == LiveIO || kind == LiveIn {
			wantN = 345
		}
		assert.Check(t, k == kind && i == 12 && n == wantN, "%s: %s %d %d", line, k, i, n)
	}
	assert.Check(t, is.Equal(string(LiveHeader(LiveIn, 0, 3)), "=in 0 3\n"))
	assert.Check(t, is.Equal(string(LiveHeader(LiveGo, 7, 3)), "=go 7\n"))
	for _, bad := range []string{"=go 1 2", "=in 1", "=go", "go 1", "=go -1", "=go 01", "=go +1", "=in 1 01", "=io 1 65537",
		"=out 1 2", "=go 1 ", "= go 1", "=ready 1"} {
		_, _, _, err := ParseLiveHeader([]byte(bad), LiveGo, LiveIn, LiveIO)
		assert.Check(t, err != nil, "%q was read", bad)
	}
}

// TestCheckInteractive: an interactive frame's tests carry no data, the
// interactor's may; neither has a compare mode, nor goes without tests.
func TestCheckInteractive(t *testing.T) {
	n := int64(1)
	frame := func(role Role, r Request) Frame { return Frame{Request: r, role: role} }
	for _, c := range []struct {
		name string
		f    Frame
		err  string
	}{
		{"neither", frame(RoleCompare, Request{}), ""},
		{"interactive", frame(RoleInteractive, Request{Tests: []Test{{Name: "a"}}}), ""},
		{"interact", frame(RoleInteract, Request{Tests: []Test{{Name: "a", StdinBytes: 1, ExpectBytes: &n}}}), ""},
		{"no tests", frame(RoleInteractive, Request{}), "interactor: an interactor grades tests, and there are none"},
		{"compare", frame(RoleInteract, Request{Compare: "exact", Tests: []Test{{Name: "a"}}}), "interactor: the interactor grades; no compare mode beside it"},
		{"the program's data", frame(RoleInteractive, Request{Tests: []Test{{Name: "a", StdinBytes: 1}}}), `test "a": an interactive program's test carries no data: its stdin is the interactor's`},
		{"the program's answer", frame(RoleInteractive, Request{Tests: []Test{{Name: "a", ExpectBytes: &n}}}), `test "a": an interactive program's test carries no data: its stdin is the interactor's`},
	} {
		err := checkInteractive(c.f)
		if c.err == "" {
			assert.Check(t, err == nil, "%s: %v", c.name, err)
			continue
		}
		assert.Check(t, is.Error(err, c.err), c.name)
	}
}
