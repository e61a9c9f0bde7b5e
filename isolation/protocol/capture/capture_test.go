package capture

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"gotest.tools/v3/assert"
)

func TestBufferAtEveryChunkBoundary(t *testing.T) {
	for _, n := range []int{0, 1, 9, 10, 11, 25} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			overflows := 0
			b := New(10)
			b.OnOverflow = func() { overflows++ }
			in := strings.Repeat("x", n)
			_, err := io.Copy(b, iotest.OneByteReader(strings.NewReader(in)))
			assert.NilError(t, err)
			assert.Equal(t, string(b.Bytes()), in[:min(n, 10)])
			assert.Equal(t, b.Total(), int64(n))
			assert.Equal(t, b.Truncated(), n > 10)
			assert.Equal(t, overflows, map[bool]int{true: 1, false: 0}[n > 10], "OnOverflow is called exactly once past the limit")
		})
	}
}

func TestBufferOneWriteStraddlingTheLimit(t *testing.T) {
	b := New(4)
	n, err := b.Write([]byte("abcdef"))
	assert.NilError(t, err)
	assert.Equal(t, n, 6, "writes always succeed, so the copier keeps draining")
	assert.Equal(t, string(b.Bytes()), "abcd")
	assert.Assert(t, b.Truncated())
	n, err = b.WriteString("gh")
	assert.NilError(t, err)
	assert.Equal(t, n, 2)
	assert.Equal(t, b.Total(), int64(8))
}

func TestBufferConcurrentWriters(t *testing.T) {
	b := New(100)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				_, _ = b.Write([]byte("xyz"))
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, b.Total(), int64(2400))
	assert.Equal(t, len(b.Bytes()), 100)
}
