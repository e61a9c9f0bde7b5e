package wire

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/strict"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// DecodeResponse strictly decodes a runner response by the one rule of
// every frame (strict.Decode: one JSON object, known fields only and each
// once, at every depth, nothing after it), then checks protocol version 2
// and that the fields agree with each other and with the output cap. A
// response that breaks any rule came from a broken or hostile container.
func DecodeResponse(b []byte) (protocol.Response, error) {
	if len(b) > limits.MaxResponseBytes {
		return protocol.Response{}, fmt.Errorf("response: larger than %d bytes", limits.MaxResponseBytes)
	}
	if len(bytes.TrimLeft(b, " \t\r\n")) == 0 {
		return protocol.Response{}, errors.New("response: empty")
	}
	var r protocol.Response
	if err := strict.Decode(b, &r); err != nil {
		return protocol.Response{}, fmt.Errorf("response: %w", err)
	}
	return r, check(r)
}

func check(r protocol.Response) error {
	switch {
	case r.V != protocol.Version:
		return fmt.Errorf("response: protocol version %d, want %d", r.V, protocol.Version)
	case len(r.Output) > limits.MaxOutputBytes:
		return fmt.Errorf("response: output is %d bytes, over the %d byte cap", len(r.Output), limits.MaxOutputBytes)
	case r.OutputBytes < 0:
		return fmt.Errorf("response: negative output_bytes %d", r.OutputBytes)
	case r.OutputTruncated != (r.OutputBytes > limits.MaxOutputBytes):
		return fmt.Errorf("response: output_truncated=%t disagrees with output_bytes %d and the %d byte cap",
			r.OutputTruncated, r.OutputBytes, limits.MaxOutputBytes)
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
