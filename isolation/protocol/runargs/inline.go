package runargs

import (
	"fmt"
	"path"
	"strings"
)

// inlineFamilies names, for interpreters people put after --, the options
// that make them run code given on their command line instead of a
// program file: letters that end a bundle of short options (python3 -Ic,
// perl -le, sh -ec) and long options; takesValue lists the short options
// whose value is the next argument, so scanning goes past it.
var inlineFamilies = map[string]struct {
	letters, long, takesValue string
}{
	"python": {letters: "cm", takesValue: "WX"},
	"pypy":   {letters: "cm", takesValue: "WX"},
	"node":   {letters: "ep", long: "--eval --print", takesValue: "r"},
	"nodejs": {letters: "ep", long: "--eval --print", takesValue: "r"},
	"ruby":   {letters: "e", takesValue: "CEIr"},
	"php":    {letters: "rBRE", takesValue: "cdfFzSt"},
	"perl":   {letters: "eE", takesValue: "I"},
	"sh":     {letters: "c", takesValue: "oO"},
	"ash":    {letters: "c", takesValue: "oO"},
	"dash":   {letters: "c", takesValue: "oO"},
	"bash":   {letters: "c", takesValue: "oO"},
	"zsh":    {letters: "c", takesValue: "oO"},
}

// inlineOption returns the option of exec that makes a known interpreter
// run code from its command line (python3 -c, python3 -m, node -e,
// php -r, sh -c), "" if there is none. Such a command cannot run the source: the
// source's path would reach it as one more argument, and the source would
// silently never run. Options are read up to the first argument that is
// not one: "-" (where the source's path goes) or a file.
func inlineOption(exec []string) string {
	fam, ok := inlineFamilies[strings.TrimRight(path.Base(exec[0]), "0123456789.")]
	if !ok {
		return ""
	}
	for i := 1; i < len(exec); i++ {
		a := exec[i]
		switch {
		case a == "-" || a == "--" || !strings.HasPrefix(a, "-"):
			return ""
		case strings.HasPrefix(a, "--"):
			name, _, _ := strings.Cut(a, "=")
			if fam.long != "" && strings.Contains(" "+fam.long+" ", " "+name+" ") {
				return name
			}
		case strings.ContainsAny(a[len(a)-1:], fam.letters) && isLetters(a[1:]):
			return a
		case len(a) == 2 && strings.ContainsAny(a[1:], fam.takesValue) && fam.takesValue != "":
			i++ // its value
		}
	}
	return ""
}

func isLetters(s string) bool {
	for _, r := range s {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			return false
		}
	}
	return s != ""
}

// checkInline refuses a command that would run code of its own instead of
// the source.
func checkInline(exec []string) error {
	if opt := inlineOption(exec); opt != "" {
		return fmt.Errorf("exec: %s %s runs the code given to %s, not the source: every run runs its source, whose path goes in place of the command's first \"-\" (%s -), else after its last argument",
			exec[0], opt, opt, exec[0])
	}
	return nil
}
