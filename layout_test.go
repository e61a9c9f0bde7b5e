package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// TestCommandFilesDependOnPlumbingOnly: a command's file (cmd_<name>.go)
// uses the shared plumbing and its own names, never a name declared in
// another command's file, so each command can be read, changed or removed
// alone.
func TestCommandFilesDependOnPlumbingOnly(t *testing.T) {
	files, err := filepath.Glob("*.go")
	assert.NilError(t, err)
	fset := token.NewFileSet()
	declaredIn := map[string]string{} // top-level name -> its file
	parsed := map[string]*ast.File{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		assert.NilError(t, err)
		parsed[name] = f
		for _, d := range f.Decls {
			for _, n := range topLevelNames(d) {
				declaredIn[n] = name
			}
		}
	}
	commands := 0
	for name, f := range parsed {
		if !strings.HasPrefix(name, "cmd_") {
			continue
		}
		commands++
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				ast.Inspect(sel.X, func(n ast.Node) bool { return checkIdent(t, fset, name, declaredIn, n) })
				return false // a field or method name is no top-level name
			}
			return checkIdent(t, fset, name, declaredIn, n)
		})
	}
	assert.Assert(t, commands >= 10, "found %d command files", commands)
}

func checkIdent(t *testing.T, fset *token.FileSet, file string, declaredIn map[string]string, n ast.Node) bool {
	id, ok := n.(*ast.Ident)
	if !ok || id.Obj != nil { // resolved in its own file: a local or its own
		return true
	}
	if other := declaredIn[id.Name]; other != "" && other != file && strings.HasPrefix(other, "cmd_") {
		t.Errorf("%s: %s uses %s from %s", fset.Position(id.Pos()), file, id.Name, other)
	}
	return true
}

// topLevelNames are the names a declaration adds to the package scope;
// methods add none.
func topLevelNames(d ast.Decl) []string {
	var names []string
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil {
			names = append(names, d.Name.Name)
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				names = append(names, s.Name.Name)
			case *ast.ValueSpec:
				for _, n := range s.Names {
					names = append(names, n.Name)
				}
			}
		}
	}
	return names
}
