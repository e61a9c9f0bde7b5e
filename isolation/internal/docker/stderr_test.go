package docker

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"gotest.tools/v3/assert"
)

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
		t.Run(name, func(t *testing.T) {
			calls := 0
			s := &StderrWatch{OnWarning: func(line string) { calls++; assert.Equal(t, line, tc.want) }}
			_, err := io.Copy(s, iotest.OneByteReader(strings.NewReader(tc.in)))
			assert.NilError(t, err)
			assert.Equal(t, s.Finish(), tc.want)
			assert.Equal(t, calls, map[bool]int{true: 1, false: 0}[tc.want != ""])
		})
	}
}

func TestStderrWatchKeepsABoundedTail(t *testing.T) {
	s := &StderrWatch{}
	_, _ = s.Write([]byte(strings.Repeat("a", 10<<10)))
	_, _ = s.Write([]byte("\nthe end"))
	assert.Equal(t, len(s.tail), stderrTail)
	assert.Assert(t, strings.HasSuffix(s.Text(), "\nthe end"))
}
