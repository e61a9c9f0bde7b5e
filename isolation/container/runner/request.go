package main

import (
	"bytes"
	"fmt"
	"io"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// readRequestWithin waits at most idle (timeout when idle is zero) for the
// request: a runner nobody sends work to ends on its own.
func readRequestWithin(stdin io.Reader, idle, timeout time.Duration, starlark bool) (protocol.Request, time.Duration, io.Reader, error) {
	if idle <= 0 {
		idle = timeout
	}
	type read struct {
		req  protocol.Request
		stop time.Duration
		data io.Reader
		err  error
	}
	got := make(chan read, 1)
	go func() {
		req, stop, data, err := readRequest(stdin, starlark)
		got <- read{req, stop, data, err}
	}()
	select {
	case r := <-got:
		return r.req, r.stop, r.data, r.err
	case <-time.After(idle):
		return protocol.Request{}, 0, nil, fmt.Errorf("request: none within %s", idle)
	}
}

// readRequest reads the request frame: one JSON object ending at its
// newline, or at EOF; then, for a request with tests, their data, the
// bytes the request announced (protocol.ReadTestData), except a check's,
// whose data is returned unread (data), to be read test by test. An
// interactive request's or an interactor's stdin goes on after its data
// with the host's live frames: data is what follows. It does
// not wait for EOF after the newline: the end
// of stdin crosses the docker client, the daemon and the shim, and costs
// milliseconds the request itself does not. It reads at most one byte more
// than the limit (protocol.MaxFrameBytes, the request's and room for the
// host's stop), so an oversized request is detected without reading it
// all; the frame's own decoding holds the request to its bound.
func readRequest(stdin io.Reader, starlark bool) (protocol.Request, time.Duration, io.Reader, error) {
	b := make([]byte, 0, 4<<10)
	buf := make([]byte, 4<<10)
	for len(b) <= protocol.MaxFrameBytes {
		n, err := stdin.Read(buf[:min(len(buf), protocol.MaxFrameBytes+1-len(b))])
		b = append(b, buf[:n]...)
		if i := bytes.IndexByte(b, '\n'); i >= 0 && i <= protocol.MaxFrameBytes {
			req, stop, err := protocol.DecodeFrame(b[:i], starlark)
			data := io.MultiReader(bytes.NewReader(b[i+1:]), stdin)
			if err == nil && req.Check {
				return req, stop, data, nil
			}
			if err == nil && req.Tests != nil {
				err = protocol.ReadTestData(data, req.Tests)
				if err != nil {
					err = fmt.Errorf("request: %w", err)
				}
			}
			if err == nil && (req.Interactive || req.Interact) {
				return req, stop, data, nil // the live frames follow
			}
			return req, stop, nil, err
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return protocol.Request{}, 0, nil, fmt.Errorf("request: reading stdin: %w", err)
		}
	}
	req, stop, err := protocol.DecodeFrame(b, starlark) // refuses b over the limit
	return req, stop, nil, err
}
