package protocol

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol/capture"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/strict"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// DecodeResponse strictly decodes a runner response by the one rule of
// every frame (strict.Decode: one JSON object, known fields only and each
// once, at every depth, nothing after it), then checks the protocol
// version and that the fields agree with each other and with the output
// cap, which output and stderr share (capture.Shares). A
// response that breaks any rule came from a broken or hostile container.
func DecodeResponse(b []byte) (Response, error) {
	if len(b) > limits.MaxResponseBytes {
		return Response{}, fmt.Errorf("response: larger than %d bytes", limits.MaxResponseBytes)
	}
	if len(bytes.TrimLeft(b, " \t\r\n")) == 0 {
		return Response{}, errors.New("response: empty")
	}
	var r Response
	if err := strict.Decode(b, &r); err != nil {
		return Response{}, fmt.Errorf("response: %w", err)
	}
	return r, checkResponse(r)
}

// checkResponse holds a decoded response to its rules: its version, its
// streams within the cap, a judge's parts, and fields that agree.
func checkResponse(r Response) error {
	if r.V != Version {
		return fmt.Errorf("response: protocol version %d, want %d", r.V, Version)
	}
	if err := checkStreams(r); err != nil {
		return err
	}
	if err := checkJudged(r); err != nil {
		return err
	}
	switch {
	case r.OK && r.Error != nil:
		return errors.New("response: ok with an error")
	case !r.OK && r.Error == nil:
		return errors.New("response: not ok and no error")
	case r.Error != nil && r.Error.Type == "":
		return errors.New("response: error without a type")
	case r.Usage != nil && r.Usage.CPUMicros != nil && *r.Usage.CPUMicros < 0:
		return fmt.Errorf("response: negative cpu_us %d", *r.Usage.CPUMicros)
	case r.Usage != nil && r.Usage.MemoryPeakBytes != nil && *r.Usage.MemoryPeakBytes < 0:
		return fmt.Errorf("response: negative memory_peak_bytes %d", *r.Usage.MemoryPeakBytes)
	}
	return nil
}

// checkStreams holds output and stderr to the cap they share: each
// within its share of it, truncated exactly when its total is over that
// share.
// A compile step's output takes its part of the cap first.
func checkStreams(r Response) error {
	bound := limits.MaxOutputBytes
	if r.Compile != nil {
		bound -= len(r.Compile.Output) + len(r.Compile.Stderr)
	}
	if len(r.Output)+len(r.Stderr) > bound {
		return fmt.Errorf("response: output and stderr are %d bytes, over the %d byte cap", len(r.Output)+len(r.Stderr), bound)
	}
	if r.OutputBytes < 0 || r.StderrBytes < 0 {
		return fmt.Errorf("response: negative output_bytes %d or stderr_bytes %d", r.OutputBytes, r.StderrBytes)
	}
	// A replaced byte was one the stream counted.
	for _, s := range []struct {
		name            string
		total, replaced int64
	}{{"output", r.OutputBytes, r.OutputReplaced}, {"stderr", r.StderrBytes, r.StderrReplaced}} {
		if s.replaced < 0 || s.replaced > s.total {
			return fmt.Errorf("response: %s_replaced_bytes %d disagrees with %s_bytes %d", s.name, s.replaced, s.name, s.total)
		}
	}
	so, se := capture.Shares(bound, r.OutputBytes, r.StderrBytes)
	for _, s := range []struct {
		name      string
		text      string
		total     int64
		truncated bool
		share     int
	}{{"output", r.Output, r.OutputBytes, r.OutputTruncated, so}, {"stderr", r.Stderr, r.StderrBytes, r.StderrTruncated, se}} {
		switch {
		case len(s.text) > s.share:
			return fmt.Errorf("response: %s is %d bytes, over its share of %d bytes of the %d byte cap", s.name, len(s.text), s.share, limits.MaxOutputBytes)
		case s.truncated != (s.total > int64(s.share)):
			return fmt.Errorf("response: %s_truncated=%t disagrees with %s_bytes %d and its share of %d bytes of the %d byte cap",
				s.name, s.truncated, s.name, s.total, s.share, limits.MaxOutputBytes)
		}
	}
	return nil
}
