package frames

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// memSink keeps each frame in memory, and notes which were closed.
type memSink struct {
	got    map[int]*bytes.Buffer
	closed map[int]bool
}

type memFrame struct {
	*bytes.Buffer
	s *memSink
	i int
}

func (f memFrame) Close() error { f.s.closed[f.i] = true; return nil }

func (s *memSink) Open(test int, size int64) (io.WriteCloser, error) {
	if s.got == nil {
		s.got, s.closed = map[int]*bytes.Buffer{}, map[int]bool{}
	}
	s.got[test] = &bytes.Buffer{}
	return memFrame{s.got[test], s, test}, nil
}

func frame(i int, b string) string { return string(protocol.OutputHeader(i, int64(len(b)))) + b }

// TestOutputFramesBeforeTheResponse: frames go to the sink whole,
// whatever the writes' boundaries (one byte at a time here), an empty one
// too, and the response that follows them is the response.
func TestOutputFramesBeforeTheResponse(t *testing.T) {
	resp := NewResponse(1 << 10)
	var sink memSink
	resp.TakeOutputs(&sink, 3)
	stream := frame(0, "3\n=out 9 9\n\x00") + frame(1, "") + frame(2, strings.Repeat("x", 5000)) + `{"ok":true}` + "\n"
	_, err := io.Copy(resp, iotest.OneByteReader(strings.NewReader(stream)))
	assert.NilError(t, err)
	assert.NilError(t, resp.OutputsErr())
	assert.Check(t, is.Equal(sink.got[0].String(), "3\n=out 9 9\n\x00"))
	assert.Check(t, is.Equal(sink.got[1].String(), ""))
	assert.Check(t, is.Len(sink.got[2].String(), 5000))
	assert.Check(t, sink.closed[0] && sink.closed[1] && sink.closed[2])
	assert.Check(t, is.Equal(string(resp.Bytes()), `{"ok":true}`+"\n"))
	assert.Check(t, closed(resp.Ended()))
}

// TestOutputFramesOutOfTheirRules: each broken frame breaks the stream,
// says why, and keeps nothing after it.
func TestOutputFramesOutOfTheirRules(t *testing.T) {
	for name, c := range map[string]struct{ stream, err string }{
		"test twice":        {frame(1, "a") + frame(1, "b"), "after test 1's"},
		"test out of order": {frame(1, "a") + frame(0, "b"), "after test 1's"},
		"test past the end": {frame(2, "a"), "test 2, after test -1's, of 2 tests"},
		"not a number":      {"=out x 1\na", "an output frame's line that is none"},
		"a sign":            {"=out +1 1\na", "an output frame's line that is none"},
		"a long line":       {"=out 0 " + strings.Repeat("1", 60), "an output frame's line that is none"},
		"over the bound":    {string(protocol.OutputHeader(0, limits.MaxCheckedOutput+1)), "over the"},
	} {
		t.Run(name, func(t *testing.T) {
			resp := NewResponse(1 << 10)
			var sink memSink
			resp.TakeOutputs(&sink, 2)
			_, _ = resp.Write([]byte(c.stream + `{"ok":true}` + "\n"))
			assert.Check(t, is.ErrorContains(resp.OutputsErr(), c.err))
			assert.Check(t, is.Len(resp.Bytes(), 0))
		})
	}
}

// TestNoOutputsTaken: without TakeOutputs, a line like a frame's is the
// response's, as any other bytes are.
func TestNoOutputsTaken(t *testing.T) {
	resp := NewResponse(1 << 10)
	_, _ = resp.Write([]byte(frame(0, "a")))
	assert.Check(t, is.Equal(string(resp.Bytes()), "=out 0 1\na"))
	assert.NilError(t, resp.OutputsErr())
}
