package isolation

import (
	"testing"

	"gotest.tools/v3/assert"

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
	used := map[string]bool{}
	for _, b := range limits.Boundaries {
		for r, proofs := range b.Hello {
			for _, p := range proofs {
				assert.Check(t, judges[p.Judge], "%s under %s: no judge %q in isolation", b.ID, r, p.Judge)
				used[p.Judge] = true
			}
		}
	}
	for kind := range judges {
		assert.Check(t, used[kind], "judge %s proves no row of limits.Boundaries", kind)
	}
	assert.Equal(t, len(runcChecks), len(limits.HelloProofs(limits.Runc)), "one check per runc proof")
}
