package dockerargs

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// Text writes argv in one of three forms, for a reader or a script:
// "json" (an array of strings), "lines" (one argument per line, as a
// Makefile or xargs reads it) or "shell" (one POSIX shell line that, pasted
// into sh, yields exactly argv).
func Text(argv []string, form string) (string, error) {
	switch form {
	case "json":
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // <, > and & as written, as every JSON the tool prints
		err := enc.Encode(argv)
		return strings.TrimSuffix(b.String(), "\n"), err
	case "lines":
		return strings.Join(argv, "\n"), nil
	case "shell":
		return shellJoin(argv), nil
	}
	return "", fmt.Errorf("unknown argv form %q", form)
}

// ReadText reads an argv in one of the forms Text writes: "json" (an
// array of strings), "lines" (one argument per line) or "shell" (one
// POSIX shell command line); "auto" tells them apart by their shape.
func ReadText(b []byte, form string) ([]string, error) {
	s := string(b)
	if form == "auto" {
		form = guessForm(s)
	}
	var argv []string
	switch form {
	case "json":
		if err := json.Unmarshal(b, &argv); err != nil {
			return nil, fmt.Errorf("want a JSON array of strings: %v", err)
		}
	case "lines":
		argv = strings.Split(strings.TrimSuffix(s, "\n"), "\n")
		if s == "" {
			argv = nil
		}
	case "shell":
		var err error
		if argv, err = splitShell(s); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown input form %q", form)
	}
	if len(argv) == 0 {
		return nil, errors.New("empty argv")
	}
	return argv, nil
}

// guessForm: JSON starts with '['; lines has several lines and a first
// line that is one plain word (the client binary); anything else is read
// as a shell line.
func guessForm(s string) string {
	t := strings.TrimLeftFunc(s, unicode.IsSpace)
	if strings.HasPrefix(t, "[") {
		return "json"
	}
	first, rest, several := strings.Cut(s, "\n")
	if several && strings.TrimSpace(rest) != "" && first != "" && !strings.ContainsAny(first, " \t'\"\\") {
		return "lines"
	}
	return "shell"
}
