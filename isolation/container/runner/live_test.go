package main

import (
	"bytes"
	"context"
	"io"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// TestLiveInDropsWhatAGoneTestMisses: the =in frames of a test whose
// process stopped reading are dropped whole, the stream stays in step,
// and the next test's =go and =in arrive.
func TestLiveInDropsWhatAGoneTestMisses(t *testing.T) {
	var stream bytes.Buffer
	stream.Write(protocol.LiveHeader(protocol.LiveGo, 0, 0))
	chunk := bytes.Repeat([]byte("1"), protocol.MaxLiveChunk)
	for range 40 {
		stream.Write(protocol.LiveHeader(protocol.LiveIn, 0, len(chunk)))
		stream.Write(chunk)
	}
	stream.Write(protocol.LiveHeader(protocol.LiveEnd, 0, 0))
	stream.Write(protocol.LiveHeader(protocol.LiveGo, 1, 0))
	stream.Write(append(protocol.LiveHeader(protocol.LiveIn, 1, 3), "42\n"...))
	pr, pw := io.Pipe()
	go func() {
		_, _ = pw.Write(stream.Bytes())
		pw.Close()
	}()
	l := readLive(pr)
	in0, err := l.await(context.Background(), 0)
	assert.NilError(t, err)
	var head [10]byte
	_, err = io.ReadFull(in0, head[:])
	assert.NilError(t, err)
	in0.Close() // the test's process is gone: what follows fails to reach it
	l.onEndOf(0, l.clearLocked)
	in1, err := l.await(context.Background(), 1)
	assert.NilError(t, err, "broken: %v", l.brokenBy())
	l.onEndOf(1, l.clearLocked) // the stream's end ends it
	got, err := io.ReadAll(in1)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(got), "42\n"))
	assert.NilError(t, l.brokenBy())
}
