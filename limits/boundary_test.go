package limits

import (
	"os"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"
)

// The README's boundary table is BoundariesMarkdown between these lines;
// go test ./limits/ -run TestREADMEBoundaries -update rewrites it.
const (
	readmeStart = "<!-- boundaries -->\n"
	readmeEnd   = "<!-- /boundaries -->\n"
)

func TestREADMEBoundaries(t *testing.T) {
	const path = "../README.md"
	b, err := os.ReadFile(path)
	assert.NilError(t, err)
	before, rest, ok := strings.Cut(string(b), readmeStart)
	assert.Assert(t, ok, "README.md has no %q line", strings.TrimSpace(readmeStart))
	section, after, ok := strings.Cut(rest, readmeEnd)
	assert.Assert(t, ok, "README.md has no %q line", strings.TrimSpace(readmeEnd))
	want := BoundariesMarkdown()
	if golden.FlagUpdate() {
		assert.NilError(t, os.WriteFile(path, []byte(before+readmeStart+want+readmeEnd+after), 0o644))
		return
	}
	assert.Equal(t, section, want, "the README's boundary table is stale: go test ./limits/ -run TestREADMEBoundaries -update")
}

func TestBoundaryTable(t *testing.T) {
	ids, checks := map[string]bool{}, map[string]bool{}
	for _, b := range Boundaries {
		assert.Assert(t, b.ID != "" && !ids[b.ID], "ids are present and unique: %q", b.ID)
		ids[b.ID] = true
		assert.Assert(t, b.Name != "" && b.Value != "", "%s has a name and a value", b.ID)
		assert.Assert(t, b.Audit != "" || len(b.Hello) > 0, "%s is judged somewhere", b.ID)
		assert.Assert(t, b.Audit != "" || len(b.Claims) == 0, "%s claims flags it does not judge", b.ID)
		for _, p := range b.Hello[Runc] {
			assert.Assert(t, p.Check != "" && p.Proves != "" && p.Judge != "" && p.Shows != "", "%s: %+v", b.ID, p)
			assert.Assert(t, !checks[p.Check], "one check per name: %q", p.Check)
			checks[p.Check] = true
		}
	}
	assert.Equal(t, RuntimeOf(""), Runc)
	_, ok := Lookup("tmp")
	assert.Assert(t, ok)
}

func TestPolicyValues(t *testing.T) {
	assert.Equal(t, User, "65534:65534")
	assert.Equal(t, CPUMax, "100000 100000")
	assert.Equal(t, TmpfsOptions, "rw,noexec,nosuid,nodev,size=32m,mode=1777")
	assert.Equal(t, UlimitNoFile, "nofile=64:64")
	assert.Equal(t, UlimitCore, "core=0:0")
}
