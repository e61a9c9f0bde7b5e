package isolation

import (
	"errors"
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

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// TestErrorMessages: an error's message starts with its verdict's
// prefix, a rejection's is its cause alone.
func TestErrorMessages(t *testing.T) {
	err := &Error{Verdict: Timeout, Err: errors.New("x")}
	assert.Equal(t, err.Error(), "timeout: x")
	assert.Equal(t, (&Error{Verdict: Rejected, Err: errors.New("memory: too small")}).Error(), "memory: too small")
	assert.Equal(t, (&Error{Verdict: "no-such", Err: errors.New("x")}).Error(), "x")
	for _, r := range protocol.Verdicts {
		assert.Equal(t, (&Error{Verdict: Verdict(r.Name), Err: errors.New("x")}).Error(), r.Prefix+"x")
	}
	assert.Equal(t, verdictOf(err), Timeout)
	assert.Equal(t, verdictOf(errors.New("plain")), EngineFailure)
	assert.Equal(t, verdictOf(nil), OK)
}

// TestVerdictsAreTheTable: the package's Verdict constants name exactly
// the rows of the one table of verdicts, protocol.Verdicts, read from the
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
	for _, r := range protocol.Verdicts {
		rows = append(rows, r.Name)
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

// TestWorst: a judge's request takes its most serious test's verdict,
// in the table's order.
func TestWorst(t *testing.T) {
	tests := func(vs ...Verdict) []TestResult {
		var ts []TestResult
		for _, v := range vs {
			ts = append(ts, TestResult{Verdict: v})
		}
		return ts
	}
	assert.Equal(t, worst(nil), OK)
	assert.Equal(t, worst(tests(Points, WrongAnswer, PresentationError, Timeout, ProgramError, JudgeFailure, OK)), JudgeFailure)
	assert.Equal(t, worst(tests(WrongAnswer, Points)), WrongAnswer)
	assert.Equal(t, worst(tests(Timeout, OOM, CPUTimeout)), OOM)
	assert.Equal(t, worst(tests(OK, "no-such")), OK)
}
