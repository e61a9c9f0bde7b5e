package isolation

import (
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/synapse-lang/synapse-isolation/dockerargs"
	"github.com/synapse-lang/synapse-isolation/limits"
)

func TestNewPlan(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	p, err := NewPlan(Options{Image: testImage, Name: "synapse-iso-x", Limits: limits.Config{Timeout: 3 * time.Second}}, now)
	assert.NilError(t, err)
	want := dockerargs.Render(dockerargs.Spec{Memory: limits.DefaultMemory, Name: "synapse-iso-x", RunID: "synapse-iso-x",
		Deadline: 1_800_000_003, Image: testImage, Args: []string{"--timeout", "3s"}})
	assert.DeepEqual(t, p.Argv, want)
	assert.Equal(t, p.Deadline, now.Add(3*time.Second))

	p, err = NewPlan(Options{Image: testImage, Exec: []string{"python3", "-"}}, now)
	assert.NilError(t, err)
	assert.DeepEqual(t, p.Argv[len(p.Argv)-5:], []string{"--timeout", "10s", "--exec", "python3", "-"})
	assert.Assert(t, strings.HasPrefix(p.Name, NamePrefix) && len(p.Name) == len(NamePrefix)+16)

	p2, _ := NewPlan(Options{Image: testImage}, now)
	assert.Assert(t, p2.Name != p.Name, "names are random per run")

	p, err = NewPlan(Options{Image: testImage, Selfcheck: true}, now)
	assert.NilError(t, err)
	assert.Equal(t, p.Argv[len(p.Argv)-1], "--selfcheck")

	_, err = NewPlan(Options{Image: testImage, Exec: []string{}}, now)
	assert.Error(t, err, "exec: command must not be empty")
	_, err = NewPlan(Options{Image: testImage, Exec: []string{"sh"}, Selfcheck: true}, now)
	assert.Error(t, err, "conflicting options: exec and selfcheck")
}
