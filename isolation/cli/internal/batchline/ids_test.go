package batchline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestIDKey(t *testing.T) {
	t.Parallel()
	key := func(s string) [32]byte {
		k, ok := idKey(json.RawMessage(s))
		assert.Check(t, ok, s)
		return k
	}
	for _, same := range [][2]string{{`1`, `1.0`}, {`1`, `1e0`}, {`100`, `1E2`}, {`"a"`, `"\u0061"`}, {`0`, `-0.0e5`}} {
		assert.Check(t, key(same[0]) == key(same[1]), "%s %s", same[0], same[1])
	}
	for _, other := range [][2]string{{`1`, `"1"`}, {`9007199254740993`, `9007199254740992`}, {`1e999999999`, `1e999999998`},
		{`1e-999999999`, `0`}, {`"a"`, `"A"`}} {
		assert.Check(t, key(other[0]) != key(other[1]), "%s %s", other[0], other[1])
	}
	for _, none := range []string{``, `null`} {
		_, ok := idKey(json.RawMessage(none))
		assert.Check(t, !ok, none)
	}
}

func TestCountRequests(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for content, want := range map[string]int{
		"": 0, "a\n": 1, "a": 1, "a\n\n  \nb\r\n": 2, strings.Repeat("x", 100<<10) + "\nb\n": 2,
		strings.Repeat("a\n", maxCountedLines+1): 0,
	} {
		f := filepath.Join(dir, "f")
		assert.NilError(t, os.WriteFile(f, []byte(content), 0o600))
		fh, err := os.Open(f)
		assert.NilError(t, err)
		assert.Check(t, is.Equal(Count(fh), want), "%.20q", content)
		off, _ := fh.Seek(0, 1)
		assert.Check(t, is.Equal(off, int64(0)), "the offset moved")
		fh.Close()
	}
	r, w, err := os.Pipe()
	assert.NilError(t, err)
	defer r.Close()
	defer w.Close()
	assert.Check(t, is.Equal(Count(r), 0), "a pipe is not counted")
}
