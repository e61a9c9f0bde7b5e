package protocol

import (
	"fmt"
	"path"
	"strings"
)

// MaxCollect bounds the files a program returns (and the patterns that
// name them): as many as it may be given.
const MaxCollect = MaxFiles

// CheckPattern applies the rules of a pattern of files to collect: a
// plain name (CheckName's rules) or a glob over plain names, path.Match's
// *, ? and [...], never a path: no "/", no "..", no leading "-".
func CheckPattern(p string) error {
	// The glob's own characters are checked by path.Match; what is left
	// is held to a name's rules, with * standing for any name's bytes.
	if _, err := path.Match(p, ""); err != nil {
		return fmt.Errorf("collect %q: not a valid pattern: %v", p, err)
	}
	plain := strings.NewReplacer("*", "x", "?", "x", "[", "x", "]", "x", "\\", "x").Replace(p)
	if err := CheckName(plain); err != nil {
		return fmt.Errorf("collect %q: must be a plain name or a glob over plain names: %s", p, strings.TrimPrefix(reason(err), "file name "))
	}
	return nil
}

// reason is err's message without the name it quotes.
func reason(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, ": "); i >= 0 {
		return msg[i+2:]
	}
	return msg
}

// checkCollect applies the rules of a request's patterns: at most
// MaxCollect, each CheckPattern's, exec mode only (a Starlark program has
// no files: it returns its value).
func checkCollect(patterns []string, starlark bool) error {
	if len(patterns) == 0 {
		return nil
	}
	if starlark {
		return fmt.Errorf("collect: a Starlark program writes no files (it has no file I/O); return a value instead")
	}
	if len(patterns) > MaxCollect {
		return fmt.Errorf("collect: %d patterns, more than the %d allowed", len(patterns), MaxCollect)
	}
	for _, p := range patterns {
		if err := CheckPattern(p); err != nil {
			return err
		}
	}
	return nil
}
