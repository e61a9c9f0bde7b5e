package attest

import (
	"fmt"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/docker"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// recordJudge reads the engine's record for one kind of proof of the
// boundary table, as helloJudge reads the hello.
type recordJudge struct {
	kind  string
	judge func(r docker.Record, memory limits.Bytes, runtime string) (seen, wrong string)
}

// recordJudges are the record's judges, in doctor's order.
var recordJudges = []recordJudge{
	{"host-runtime", func(r docker.Record, _ limits.Bytes, runtime string) (string, string) {
		return "Runtime " + r.Runtime, unless(r.Runtime == runtime, fmt.Sprintf("the engine ran the container under %q, not %q", r.Runtime, runtime))
	}},
	{"host-swap", func(r docker.Record, memory limits.Bytes, _ string) (string, string) {
		seen := fmt.Sprintf("Memory %d MemorySwap %d", r.Memory, r.MemorySwap)
		return seen, unless(r.Memory == int64(memory) && r.MemorySwap == int64(memory),
			fmt.Sprintf("the engine's record allows swap or another limit (want Memory and MemorySwap %d)", int64(memory)))
	}},
	{"host-pids", func(r docker.Record, _ limits.Bytes, _ string) (string, string) {
		seen := fmt.Sprintf("PidsLimit %d", r.PidsLimit)
		return seen, unless(r.PidsLimit == limits.GVisorHostPIDs, fmt.Sprintf("the host's task limit is %d, want %d", r.PidsLimit, limits.GVisorHostPIDs))
	}},
}
