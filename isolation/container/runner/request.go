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
func readRequestWithin(stdin io.Reader, idle, timeout time.Duration, starlark bool) (incoming, error) {
	if idle <= 0 {
		idle = timeout
	}
	type read struct {
		in  incoming
		err error
	}
	got := make(chan read, 1)
	go func() {
		in, err := readRequest(stdin, starlark)
		got <- read{in, err}
	}()
	select {
	case r := <-got:
		return r.in, r.err
	case <-time.After(idle):
		return incoming{}, fmt.Errorf("request: none within %s", idle)
	}
}

// readRequest reads the request frame: one JSON object ending at its
// newline, or at EOF; then, for a request with tests, their data, the
// bytes the request announced (protocol.ReadTestData), except a check's,
// whose data comes test by test (protocol.Role.DataPerTest), to be read
// as the checker comes to each. What follows (data: a check's data, an
// interactive request's or an interactor's live frames) is left unread.
// It does not wait for EOF after the newline: the end of stdin crosses
// the docker client, the daemon and the shim, and costs milliseconds the
// request itself does not. It reads at most one byte more than the limit
// (protocol.MaxFrameBytes, the request's and room for the host's stop),
// so an oversized request is detected without reading it all; the
// frame's own decoding holds the request to its bound.
func readRequest(stdin io.Reader, starlark bool) (incoming, error) {
	b := make([]byte, 0, 4<<10)
	buf := make([]byte, 4<<10)
	for len(b) <= protocol.MaxFrameBytes {
		n, err := stdin.Read(buf[:min(len(buf), protocol.MaxFrameBytes+1-len(b))])
		b = append(b, buf[:n]...)
		if i := bytes.IndexByte(b, '\n'); i >= 0 && i <= protocol.MaxFrameBytes {
			f, stop, err := protocol.DecodeFrame(b[:i], starlark)
			in := incoming{frame: f, stop: stop, data: io.MultiReader(bytes.NewReader(b[i+1:]), stdin)}
			if err == nil && f.Tests != nil && !f.Role().DataPerTest() {
				if err = protocol.ReadTestData(in.data, f.Tests); err != nil {
					err = fmt.Errorf("request: %w", err)
				}
			}
			return in, err
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return incoming{}, fmt.Errorf("request: reading stdin: %w", err)
		}
	}
	f, stop, err := protocol.DecodeFrame(b, starlark) // refuses b over the limit
	return incoming{frame: f, stop: stop}, err
}
