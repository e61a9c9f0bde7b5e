// Command shape prints the few sizes of the tree that a change should not
// grow unseen: the Go files of the public package isolation/ (besides
// tests), the lines of its go doc -short, the production files over 350
// lines and the functions over 60. It is for people to read in the test
// command's log, not a gate: it exits 0 whatever it finds.
//
// Usage (from the module's root): go run ./scripts/shape
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The sizes past which a file or a function is named.
const (
	maxFileLines = 350
	maxFuncLines = 60
)

func main() {
	var apiFiles int
	var bigFiles, bigFuncs []string
	fset := token.NewFileSet()
	_ = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "tests") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		if filepath.Dir(path) == "isolation" {
			apiFiles++
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil || ast.IsGenerated(f) {
			return nil
		}
		if n := fset.Position(f.End()).Line; n > maxFileLines {
			bigFiles = append(bigFiles, fmt.Sprintf("%s:%d", path, n))
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Body != nil {
				if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > maxFuncLines {
					bigFuncs = append(bigFuncs, fmt.Sprintf("%s:%s:%d", path, fn.Name.Name, n))
				}
			}
		}
		return nil
	})
	doc, err := exec.Command("go", "doc", "-short", "./isolation").Output()
	docLines := fmt.Sprint(strings.Count(string(doc), "\n"))
	if err != nil {
		docLines = "unknown (" + err.Error() + ")"
	}
	fmt.Printf("shape: isolation/ holds %d Go files besides tests; go doc -short ./isolation is %s lines\n", apiFiles, docLines)
	fmt.Printf("shape: %d production files over %d lines: %s\n", len(bigFiles), maxFileLines, strings.Join(bigFiles, " "))
	fmt.Printf("shape: %d functions over %d lines: %s\n", len(bigFuncs), maxFuncLines, strings.Join(bigFuncs, " "))
	os.Exit(0)
}
