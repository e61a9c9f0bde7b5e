package attest

import (
	"encoding/json"
	"testing"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/hello"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// BenchmarkJudgeHello is the host's own share of the handshake: decoding
// a hello strictly and judging it against the plan.
func BenchmarkJudgeHello(b *testing.B) {
	sc := goodSelfcheck()
	line, err := json.Marshal(hello.Frame{V: protocol.Version, Selfcheck: &sc})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		h, err := protocol.DecodeHello(line)
		if err != nil {
			b.Fatal(err)
		}
		if err := runcRefusal(h.Selfcheck, limits.Config{Memory: limits.DefaultMemory}); err != nil {
			b.Fatal(err)
		}
	}
}
