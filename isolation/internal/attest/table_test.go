package attest

import (
	"testing"

	"gotest.tools/v3/assert"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol/hello"
	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/attestation"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// TestEveryProofHasItsJudge holds the boundary table's hello column to the
// judges: a proof whose judge is missing, a judge no row uses, or a judge
// used twice in one runtime fails here.
func TestEveryProofHasItsJudge(t *testing.T) {
	judges := map[string]bool{}
	for _, j := range helloJudges {
		assert.Assert(t, !judges[j.kind], "judge %s is declared twice", j.kind)
		judges[j.kind] = true
	}
	for _, j := range recordJudges {
		assert.Assert(t, !judges[j.kind], "judge %s is declared twice", j.kind)
		judges[j.kind] = true
	}
	used := map[string]bool{}
	for _, b := range limits.Boundaries {
		for r, proofs := range b.Hello {
			for _, p := range proofs {
				assert.Check(t, judges[p.Judge], "%s under %s: no judge %q in package attest", b.ID, r, p.Judge)
				used[p.Judge] = true
			}
		}
	}
	for kind := range judges {
		assert.Check(t, used[kind], "judge %s proves no row of limits.Boundaries", kind)
	}
	for _, r := range limits.Runtimes {
		assert.Equal(t, len(columns[r]), len(limits.HelloProofs(r)), "one check per %s proof", r)
	}
	assert.Check(t, !NeedsRecord(limits.Runc), "a runc run reads no record: its hello shows everything")
	assert.Check(t, NeedsRecord(limits.Runsc))
}

// runcJudge and runcRefusal judge a hello under runc, whose column reads
// no record.
func runcJudge(s hello.Selfcheck, memory limits.Bytes) []Finding {
	return Judge(limits.Runc, Sight{Hello: s, Memory: memory})
}

func runcRefusal(s *hello.Selfcheck, lim limits.Config) error {
	return Refusal(limits.Runc, Sight{Hello: *s, Memory: lim.Memory}, lim.CPUTime > 0)
}

func goodSelfcheck() hello.Selfcheck { return attestation.Perfect(int64(limits.DefaultMemory)) }

// failed are the names of the checks that failed.
func failed(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		if f.Wrong != "" {
			out = append(out, f.Check)
		}
	}
	return out
}
