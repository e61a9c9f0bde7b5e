package runargs

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
)

// maxPreload bounds the modules an image may declare to preload.
const maxPreload = 16

// moduleName is a Python module's dotted name.
var moduleName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}(\.[A-Za-z_][A-Za-z0-9_]{0,63}){0,7}$`)

// CheckPreload applies the rules of a preload: 1 to maxPreload Python
// module names, for a Python interpreter that reads its program from
// "-" (the runner starts it with its own bootstrap there, and hands it the
// program's path once the request came).
func CheckPreload(modules, exec []string) error {
	if len(modules) == 0 || len(modules) > maxPreload {
		return fmt.Errorf("preload: must name 1 to %d modules (got %d)", maxPreload, len(modules))
	}
	for _, m := range modules {
		if !moduleName.MatchString(m) {
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
