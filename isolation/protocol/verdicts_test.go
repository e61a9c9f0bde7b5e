package protocol

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestVerdicts holds the one table to its own rules: each name once, its
// place its severity, an owner for each, and only the program's given to
// a test by a runner, which may give no other.
func TestVerdicts(t *testing.T) {
	seen := map[string]bool{}
	for i, r := range Verdicts {
		assert.Check(t, r.Name != "" && !seen[r.Name], "row %d: name %q empty or twice", i, r.Name)
		seen[r.Name] = true
		assert.Check(t, is.Equal(Severity(r.Name), i), r.Name)
		assert.Check(t, r.Owner == Program || r.Owner == Sandbox, "%s: owner %q", r.Name, r.Owner)
		assert.Check(t, !r.Test || r.Owner == Program, "%s: a runner gives a test only the program's verdicts", r.Name)
		assert.Check(t, r.When != "", r.Name)
		assert.Check(t, (checkTestVerdict(r.Name) == nil) == r.Test, r.Name)
	}
	assert.Equal(t, Severity("no-such"), -1)
	assert.ErrorContains(t, checkTestVerdict("passed"), `verdict "passed" is none of [ok wrong_answer program_error `)
	assert.Equal(t, Verdicts[0].Name, TestOK, "the least serious")
}
