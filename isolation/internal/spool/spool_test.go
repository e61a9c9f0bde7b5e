package spool

import (
	"bytes"
	"os"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestSpoolKeepsWholeFramesOnly: a frame counts once all its announced
// bytes were written and it was closed; a byte more is refused, a short
// one never counts; the directory is its owner's alone and goes with
// Remove.
func TestSpoolKeepsWholeFramesOnly(t *testing.T) {
	s, err := New()
	assert.NilError(t, err)
	fi, err := os.Stat(s.dir)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(fi.Mode().Perm(), os.FileMode(0o700)))

	w, err := s.Open(0, 3)
	assert.NilError(t, err)
	_, err = w.Write([]byte("ab"))
	assert.NilError(t, err)
	_, err = w.Write([]byte("cd"))
	assert.Error(t, err, "test 0's output: more than the 3 bytes announced")
	_, err = w.Write([]byte("c"))
	assert.NilError(t, err)
	assert.NilError(t, w.Close())
	n, ok := s.Size(0)
	assert.Check(t, ok && n == 3)
	var b bytes.Buffer
	assert.NilError(t, s.CopyTo(&b, 0))
	assert.Check(t, is.Equal(b.String(), "abc"))

	w, err = s.Open(1, 5)
	assert.NilError(t, err)
	_, err = w.Write([]byte("ab"))
	assert.NilError(t, err)
	assert.NilError(t, w.Close())
	_, ok = s.Size(1)
	assert.Check(t, !ok, "a short frame counts")
	_, err = s.Open(0, 1)
	assert.Check(t, err != nil, "a test's file opened twice")

	assert.NilError(t, s.Remove())
	_, err = os.Stat(s.dir)
	assert.Check(t, os.IsNotExist(err))
}
