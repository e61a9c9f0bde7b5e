package frames

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/limits"
)

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// TestHelloThenResponse: the hello line ends at its newline, whatever the
// writes' boundaries; what follows the request is the response, whose
// line's end and first byte are noted.
func TestHelloThenResponse(t *testing.T) {
	resp := NewResponse(1 << 10)
	out := NewStdout(resp)
	assert.Check(t, !out.Spoke())
	_, err := io.Copy(out, iotest.OneByteReader(strings.NewReader(`{"v":8}`+"\n")))
	assert.NilError(t, err)
	assert.Check(t, closed(out.Ended()))
	assert.Check(t, out.Spoke())
	assert.Check(t, is.Equal(string(out.Hello()), `{"v":8}`))
	assert.Check(t, resp.Arrived().IsZero())

	assert.NilError(t, out.Begin())
	_, _ = out.Write([]byte(`{"ok":`))
	assert.Check(t, !closed(resp.Ended()))
	_, _ = out.Write([]byte("true}\n"))
	assert.Check(t, closed(resp.Ended()))
	assert.Check(t, !resp.Arrived().IsZero())
	assert.Check(t, is.Equal(string(resp.Bytes()), `{"ok":true}`+"\n"))
}

// TestBytesBeforeTheRequestAreEarly: a runner that writes between its
// hello and the request (two lines at once, say) broke the protocol; the
// bytes are not kept as a response.
func TestBytesBeforeTheRequestAreEarly(t *testing.T) {
	resp := NewResponse(1 << 10)
	out := NewStdout(resp)
	_, _ = out.Write([]byte("{}\n{}\n"))
	assert.Check(t, closed(out.Ended()))
	assert.Check(t, is.Equal(out.Begin(), ErrEarly))
	assert.Check(t, is.Len(resp.Bytes(), 0))
}

// TestOversizedHelloEndsAtItsBound: a hello line past its bound ends the
// wait at once, with one byte more than the bound kept to say so, and
// nothing of it reaches the response.
func TestOversizedHelloEndsAtItsBound(t *testing.T) {
	resp := NewResponse(1 << 10)
	out := NewStdout(resp)
	n, err := out.Write([]byte(strings.Repeat("x", limits.MaxHelloBytes+100)))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(n, limits.MaxHelloBytes+100), "a write never fails or blocks the client")
	assert.Check(t, closed(out.Ended()))
	assert.Check(t, is.Len(out.Hello(), limits.MaxHelloBytes+1))
	assert.NilError(t, out.Begin())
	assert.Check(t, is.Len(resp.Bytes(), 0))
}
