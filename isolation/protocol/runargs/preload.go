package runargs

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// maxPreload bounds the modules an image may declare to preload.
const maxPreload = 16

// isModuleName reports whether m is a Python module's dotted name: 1 to 8
// identifiers of 1 to 64 ASCII letters, digits and underscores, none
// starting with a digit, joined by dots. Checked by hand: the same rule
// as a regular expression with counted repeats took 12 ms to compile at
// every start of every program that links this package (the tool, its
// reaper, the runner).
func isModuleName(m string) bool {
	parts := strings.Split(m, ".")
	if len(parts) > 8 {
		return false
	}
	for _, p := range parts {
		if len(p) == 0 || len(p) > 64 || '0' <= p[0] && p[0] <= '9' {
			return false
		}
		for _, c := range []byte(p) {
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
				return false
			}
		}
	}
	return true
}

// CheckPreload applies the rules of a preload: 1 to maxPreload Python
// module names, for a Python interpreter that reads its program from
// "-" (the runner starts it with its own bootstrap there, and hands it the
// program's path once the request came).
func CheckPreload(modules, exec []string) error {
	if len(modules) == 0 || len(modules) > maxPreload {
		return fmt.Errorf("preload: must name 1 to %d modules (got %d)", maxPreload, len(modules))
	}
	for _, m := range modules {
		if !isModuleName(m) {
			return fmt.Errorf("preload: %q is not a Python module name", m)
		}
	}
	if !isPython(exec) {
		return errors.New("preload: needs a Python interpreter that reads its program from \"-\"")
	}
	return nil
}

// isPython reports whether exec is a Python interpreter (python, python3,
// python3.11, pypy3) that reads its program from a "-" argument.
func isPython(exec []string) bool {
	if len(exec) == 0 {
		return false
	}
	base := strings.TrimRight(path.Base(exec[0]), "0123456789.")
	if base != "python" && base != "pypy" {
		return false
	}
	for _, a := range exec[1:] {
		if a == "-" {
			return true
		}
	}
	return false
}
