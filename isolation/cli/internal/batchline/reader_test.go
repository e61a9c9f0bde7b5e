package batchline

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// TestReaderKeepsAtMostOneByteOverTheBound: a line past the bound is held
// only in part (one byte over, so the decoder says it is too long), CRLF
// and LF end lines alike, and the last line needs no newline.
func TestReaderKeepsAtMostOneByteOverTheBound(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 3*limits.MaxLineBytes)
	lr := NewReader(context.Background(), strings.NewReader("a\r\n"+long+"\nb"))
	defer lr.Close()
	var got []string
	for l := range lr.Lines {
		got = append(got, string(l.Raw))
		if l.Err != nil {
			assert.Check(t, errors.Is(l.Err, io.EOF), l.Err)
			break
		}
	}
	assert.Assert(t, is.Len(got, 3))
	assert.Check(t, is.Equal(got[0], "a"))
	assert.Check(t, is.Equal(len(got[1]), limits.MaxLineBytes+1))
	assert.Check(t, is.Equal(got[2], "b"))
}
