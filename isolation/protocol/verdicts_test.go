package protocol

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestVerdicts holds the one table to its own rules: each name once, its
// place its severity, an owner for each, and only the program's given to
// a test by a runner, which may give no other.
func TestVerdicts(t *testing.T) {
	seen := map[Verdict]bool{}
	for i, r := range Verdicts {
		assert.Check(t, r.Name != "" && !seen[r.Name], "row %d: name %q empty or twice", i, r.Name)
		seen[r.Name] = true
		assert.Check(t, is.Equal(Severity(r.Name), i), string(r.Name))
		assert.Check(t, r.Owner == Program || r.Owner == Sandbox, "%s: owner %q", r.Name, r.Owner)
		assert.Check(t, !r.Test || r.Owner == Program, "%s: a runner gives a test only the program's verdicts", r.Name)
		assert.Check(t, r.When != "", string(r.Name))
		assert.Check(t, (checkTestVerdict(string(r.Name)) == nil) == r.Test, string(r.Name))
	}
	assert.Equal(t, Severity("no-such"), -1)
	assert.ErrorContains(t, checkTestVerdict("passed"), `verdict "passed" is none of [ok wrong_answer program_error `)
	assert.Equal(t, Verdicts[0].Name, OK, "the least serious")
}

// TestVerdictsAreTheTable: the package's Verdict constants name exactly
// the rows of the one table of verdicts, Verdicts, read from the
// source so that neither can gain a verdict the other lacks.
func TestVerdictsAreTheTable(t *testing.T) {
	var consts []string
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	assert.NilError(t, err)
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		assert.NilError(t, err)
		f, err := parser.ParseFile(fset, name, src, 0)
		assert.NilError(t, err)
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
				consts = append(consts, verdictConsts(t, g)...)
			}
		}
	}
	var rows []string
	for _, r := range Verdicts {
		rows = append(rows, string(r.Name))
	}
	slices.Sort(consts)
	slices.Sort(rows)
	assert.DeepEqual(t, consts, rows)
}

// verdictConsts are the values of g's constants of type Verdict.
func verdictConsts(t *testing.T, g *ast.GenDecl) []string {
	var vs []string
	for _, spec := range g.Specs {
		s := spec.(*ast.ValueSpec)
		if id, ok := s.Type.(*ast.Ident); !ok || id.Name != "Verdict" {
			continue
		}
		for _, v := range s.Values {
			lit, ok := v.(*ast.BasicLit)
			assert.Assert(t, ok, "a Verdict constant that is no literal")
			name, err := strconv.Unquote(lit.Value)
			assert.NilError(t, err)
			vs = append(vs, name)
		}
	}
	return vs
}
