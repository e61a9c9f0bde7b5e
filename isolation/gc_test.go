package isolation

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
)

func TestGC(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	for _, tc := range []struct {
		name    string
		o       GCOptions
		removed []string
		left    []string
	}{
		{"expired only", GCOptions{}, []string{"expired", "no-deadline"}, []string{"fresh", "in-grace"}},
		{"all", GCOptions{All: true}, []string{"expired", "fresh", "in-grace", "no-deadline"}, nil},
		{"dry run", GCOptions{DryRun: true}, nil, []string{"expired", "fresh", "in-grace", "no-deadline"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o, state := fake(t, "ok")
			for name, deadline := range map[string]string{
				"expired":     strconv.FormatInt(now.Add(-time.Minute).Unix(), 10),
				"in-grace":    strconv.FormatInt(now.Add(-2*time.Second).Unix(), 10),
				"fresh":       strconv.FormatInt(now.Add(time.Minute).Unix(), 10),
				"no-deadline": "<no value>",
			} {
				assert.NilError(t, fakedocker.AddContainer(state, name, "id-"+name, deadline, "running"))
			}
			tc.o.Engine = o.Engine
			found, err := GC(context.Background(), tc.o, now)
			assert.NilError(t, err)
			var removed []string
			for _, l := range found {
				assert.Equal(t, l.RunID, "id-"+l.Name)
				if l.Removed {
					removed = append(removed, l.Name)
				}
			}
			slices.Sort(removed)
			assert.DeepEqual(t, removed, tc.removed)
			left := fakedocker.Containers(state)
			slices.Sort(left)
			assert.DeepEqual(t, left, tc.left)
		})
	}
}
