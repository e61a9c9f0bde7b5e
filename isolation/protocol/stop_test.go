package protocol

import (
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/limits"
)

func TestStopRoundTrip(t *testing.T) {
	body, err := EncodeRequest(Request{Source: "1+2", Stdin: "x"}, true)
	assert.NilError(t, err)
	for d, want := range map[time.Duration]time.Duration{
		1500 * time.Millisecond:   1500 * time.Millisecond,
		1500*time.Millisecond + 1: 1501 * time.Millisecond, // rounded up
		0:                         time.Millisecond,        // never 0, which means none
		-time.Second:              time.Millisecond,
	} {
		frame := WithStop(body, d)
		assert.Check(t, strings.HasPrefix(string(frame), `{"stop_ms":`), string(frame))
		req, stop, err := DecodeFrame(frame, true)
		assert.NilError(t, err)
		assert.Check(t, is.Equal(stop, want), "WithStop(%s)", d)
		assert.Check(t, is.DeepEqual(req.Request, Request{Source: "1+2", Stdin: "x"}))
		assert.Check(t, is.Equal(req.Role(), RoleCompare))
	}
	_, stop, err := DecodeFrame(body, true)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(stop, time.Duration(0)), "a frame without the stop")
}

func TestStopRejects(t *testing.T) {
	for in, want := range map[string]string{
		`{"stop_ms":0,"source":"a"}`:             `request: "stop_ms" must be a whole number of milliseconds from 1 to 600000`,
		`{"stop_ms":-5,"source":"a"}`:            `request: "stop_ms" must be a whole number of milliseconds from 1 to 600000`,
		`{"stop_ms":1.5,"source":"a"}`:           `request: "stop_ms" must be a whole number of milliseconds from 1 to 600000`,
		`{"stop_ms":"5","source":"a"}`:           `request: "stop_ms" must be a whole number of milliseconds from 1 to 600000`,
		`{"stop_ms":600001,"source":"a"}`:        `request: "stop_ms" must be a whole number of milliseconds from 1 to 600000`,
		`{"stop_ms":1,"stop_ms":2,"source":"a"}`: `request: duplicate field "stop_ms"`,
	} {
		_, _, err := DecodeFrame([]byte(in), true)
		assert.Check(t, err != nil && err.Error() == want, "%s: got %v, want %s", in, err, want)
	}
}

// TestStopOutsideTheBound: the stop does not count against the request's
// bound, which still holds the request itself to it.
func TestStopOutsideTheBound(t *testing.T) {
	fits := strings.Repeat("x", limits.MaxRequestBytes-len(`{"source":""}`))
	body, err := EncodeRequest(Request{Source: fits}, true)
	assert.NilError(t, err)
	assert.Equal(t, len(body), limits.MaxRequestBytes)
	frame := WithStop(body, limits.MaxTimeout)
	assert.Assert(t, len(frame) > limits.MaxRequestBytes && len(frame) <= MaxFrameBytes, len(frame))
	req, stop, err := DecodeFrame(frame, true)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(len(req.Source), len(fits)))
	assert.Check(t, is.Equal(stop, limits.MaxTimeout))

	// One byte more of request is over its bound, stop or not.
	over := []byte(`{"source":"` + fits + `x"}`)
	_, _, err = DecodeFrame(over, true)
	assert.Check(t, is.ErrorContains(err, "over the limit"))
	_, _, err = DecodeFrame(WithStop(over, time.Second), true)
	assert.Check(t, is.ErrorContains(err, "over the limit"))
}
