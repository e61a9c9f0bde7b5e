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
		assert.Assert(t, (len(b.Hello[Runc]) == 0) == (len(b.Hello[Runsc]) == 0), "%s: a boundary the hello proves under one runtime is proven under each", b.ID)
		for _, r := range Runtimes {
			for _, p := range b.Hello[r] {
				assert.Assert(t, p.Check != "" && p.Proves != "" && p.Judge != "" && p.Shows != "", "%s: %+v", b.ID, p)
				key := string(r) + " " + p.Check
				assert.Assert(t, !checks[key], "one check per name under %s: %q", r, p.Check)
				checks[key] = true
			}
		}
		for r, f := range b.Under {
			assert.Assert(t, len(f.Argv) > 0 && f.Audit != "", "%s under %s has an argv and an audit rule", b.ID, r)
		}
	}
	for name, want := range map[string]Runtime{"": Runc, "runc": Runc, "runsc": Runsc, "runsc-kvm": Runsc} {
		got, err := RuntimeOf(name)
		assert.NilError(t, err)
		assert.Equal(t, got, want, name)
	}
	for _, name := range []string{"crun", "kata", "runscx", "RUNSC"} {
		_, err := RuntimeOf(name)
		assert.ErrorContains(t, err, "--runtime: \""+name+"\" is not a runtime the boundary table proves")
	}
	pids, _ := Lookup("pids")
	assert.DeepEqual(t, pids.ArgvUnder(Runc), []string{"--pids-limit", "64"})
	assert.DeepEqual(t, pids.ArgvUnder(Runsc), []string{"--pids-limit", "320", "--ulimit", "nproc=64:64"})
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
