package isolation

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"gotest.tools/v3/assert"
)

func TestBoundedBufferAtEveryChunkBoundary(t *testing.T) {
	for _, n := range []int{0, 1, 9, 10, 11, 25} {
		overflows := 0
		b := &boundedBuffer{limit: 10, onOverflow: func() { overflows++ }}
		in := strings.Repeat("x", n)
		_, err := io.Copy(b, iotest.OneByteReader(strings.NewReader(in)))
		assert.NilError(t, err)
		assert.Equal(t, string(b.bytes()), in[:min(n, 10)])
		assert.Equal(t, b.overflowed(), n > 10, n)
		assert.Equal(t, overflows, map[bool]int{true: 1, false: 0}[n > 10], "onOverflow is called exactly once past the limit (n=%d)", n)
	}
	// One big write straddling the limit.
	b := &boundedBuffer{limit: 4}
	n, err := b.Write([]byte("abcdef"))
	assert.NilError(t, err)
	assert.Equal(t, n, 6, "writes always succeed, so the copier keeps draining")
	assert.Equal(t, string(b.bytes()), "abcd")
	assert.Assert(t, b.overflowed())
}

func TestStderrWatchFindsWarningsAcrossWrites(t *testing.T) {
	for name, tc := range map[string]struct {
		in   string
		want string
	}{
		"split line":      {"docker: something\nWARNING: Your kernel does not support swap limit capabilities\n", "WARNING: Your kernel does not support swap limit capabilities"},
		"no newline":      {"WARNING: No swap limit support", "WARNING: No swap limit support"},
		"indented":        {"  WARNING: x\n", "WARNING: x"},
		"not at start":    {"note: no WARNING: here\n", ""},
		"none":            {"Unable to find image\n", ""},
		"first one wins":  {"WARNING: a\nWARNING: b\n", "WARNING: a"},
		"long line first": {strings.Repeat("z", 3000) + "\nWARNING: after a long line\n", "WARNING: after a long line"},
	} {
		calls := 0
		s := &stderrWatch{onWarning: func() { calls++ }}
		_, err := io.Copy(s, iotest.OneByteReader(strings.NewReader(tc.in)))
		assert.NilError(t, err)
		assert.Equal(t, s.finish(), tc.want, name)
		assert.Equal(t, calls, map[bool]int{true: 1, false: 0}[tc.want != ""], name)
	}
}

func TestStderrWatchKeepsABoundedTail(t *testing.T) {
	s := &stderrWatch{}
	_, _ = s.Write([]byte(strings.Repeat("a", 10<<10)))
	_, _ = s.Write([]byte("\nthe end"))
	assert.Equal(t, len(s.tail), stderrTail)
	assert.Assert(t, strings.HasSuffix(s.text(), "\nthe end"))
}
