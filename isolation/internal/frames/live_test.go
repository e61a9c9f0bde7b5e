package frames

import (
	"fmt"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// liveLog notes the live frames it is given, in order.
type liveLog struct{ events []string }

func (l *liveLog) Ready(i int)        { l.events = append(l.events, fmt.Sprintf("ready %d", i)) }
func (l *liveLog) IO(i int, b []byte) { l.events = append(l.events, fmt.Sprintf("io %d %q", i, b)) }
func (l *liveLog) Shut(i int)         { l.events = append(l.events, fmt.Sprintf("shut %d", i)) }
func (l *liveLog) Done(i int)         { l.events = append(l.events, fmt.Sprintf("done %d", i)) }
func (l *liveLog) Break(err error)    { l.events = append(l.events, "break") }
func (l *liveLog) joined() string     { return strings.Join(l.events, "; ") }
func live1(kind string, i int) string { return string(protocol.LiveHeader(kind, i, 0)) }

// TestLiveFramesSplitOff: the live frames before the response go to the
// sink whatever the writes' sizes (one byte at a time too), an =io
// frame's bytes are its own even when they hold a newline or '=', and
// the response that follows is the response.
func TestLiveFramesSplitOff(t *testing.T) {
	stream := live1(protocol.LiveReady, 0) + string(protocol.LiveHeader(protocol.LiveIO, 0, 5)) + "=a\nb\n" +
		live1(protocol.LiveShut, 0) + live1(protocol.LiveDone, 0) + live1(protocol.LiveReady, 1) + `{"v":8}` + "\n"
	for _, size := range []int{1, 3, len(stream)} {
		var log liveLog
		r := NewResponse(limits.MaxResponseBytes)
		r.TakeLive(&log, 2)
		for s := stream; s != ""; {
			k := min(size, len(s))
			_, err := r.Write([]byte(s[:k]))
			assert.NilError(t, err)
			s = s[k:]
		}
		assert.NilError(t, r.LiveErr())
		assert.Check(t, is.Equal(string(r.Bytes()), `{"v":8}`+"\n"), "writes of %d", size)
		if size == len(stream) {
			assert.Check(t, is.Equal(log.joined(), `ready 0; io 0 "=a\nb\n"; shut 0; done 0; ready 1`))
		} else {
			assert.Check(t, strings.HasPrefix(log.joined(), "ready 0; io 0 "), log.joined())
			assert.Check(t, strings.HasSuffix(log.joined(), "; shut 0; done 0; ready 1"), log.joined())
		}
	}
}

// TestLiveFramesBreak: a frame out of its rules breaks the stream, and
// nothing after it is kept.
func TestLiveFramesBreak(t *testing.T) {
	for stream, want := range map[string]string{
		"=go 0\n":                     "live frames\na live frame's line that is none",
		"=ready 2\n":                  "live frames: test 2, of 2 tests",
		"=io 0 70000\n":               "a live frame of 70000 bytes",
		"=" + strings.Repeat("x", 80): "a live frame's line that is none",
	} {
		var log liveLog
		r := NewResponse(limits.MaxResponseBytes)
		r.TakeLive(&log, 2)
		_, _ = r.Write([]byte(stream + `{"v":8}` + "\n"))
		assert.Check(t, r.LiveErr() != nil && strings.Contains(r.LiveErr().Error(), want), "%q: %v", stream, r.LiveErr())
		assert.Check(t, is.Len(r.Bytes(), 0), "%q", stream)
		assert.Check(t, is.Equal(log.joined(), "break"), "%q: the sink is told", stream)
	}
}
