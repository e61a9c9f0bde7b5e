package dockerargs

import (
	"testing"

	"gotest.tools/v3/assert"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// TestEveryBoundaryHasItsJudge holds the boundary table and the audit's
// rules to each other: a row with an audit rule and no judge, or a judge
// with no row, fails here.
func TestEveryBoundaryHasItsJudge(t *testing.T) {
	rows := map[string]bool{}
	for _, b := range limits.Boundaries {
		if b.Audit == "" {
			continue
		}
		rows[b.ID] = true
		assert.Check(t, judges[b.ID] != nil, "row %s has no judge in dockerargs", b.ID)
	}
	for id := range judges {
		assert.Check(t, rows[id], "judge %s has no row with an audit rule in limits.Boundaries", id)
	}
	for _, b := range limits.Boundaries {
		for _, f := range b.Claims {
			_, known := runFlags[f]
			assert.Check(t, known && !harmless[f], "%s claims %s, which is not a docker run flag, or harmless", b.ID, f)
		}
	}
}
