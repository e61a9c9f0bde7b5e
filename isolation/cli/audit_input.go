package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// readArgv reads an argv in one of the forms `argv` prints: "json" (an
// array of strings), "lines" (one argument per line) or "shell" (one
// POSIX shell command line); "auto" tells them apart by their shape.
func readArgv(b []byte, form string) ([]string, error) {
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

// splitShell splits one POSIX shell command line into words, with the
// shell's quoting rules: single quotes keep everything, double quotes keep
// everything but \\ escapes of $ ` " \\ and newline, a backslash outside
// quotes escapes the next character and joins lines. Anything the shell
// would expand or interpret rather than pass on (parameters, command
// substitution, globs, tilde, braces, redirections, pipes, separators,
// comments, a second command) is refused: what the shell would run cannot
// be known from the text alone, so it is never guessed.
func splitShell(s string) ([]string, error) {
	var (
		words  []string
		word   strings.Builder
		inWord bool
	)
	end := func() {
		if inWord {
			words = append(words, word.String())
		}
		word.Reset()
		inWord = false
	}
	refuse := func(what string, c rune) error {
		return fmt.Errorf("shell line: unquoted %q (%s) is refused: quote it, or give the argv as JSON", c, what)
	}
	r := []rune(s)
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case c == ' ' || c == '\t':
			end()
		case c == '\n':
			end()
			if strings.TrimSpace(string(r[i:])) != "" {
				return nil, errors.New("shell line: more than one command (an unquoted newline ends one)")
			}
			return words, nil
		case c == '\\':
			if i+1 >= len(r) {
				return nil, errors.New("shell line: ends with a lone backslash")
			}
			i++
			if r[i] != '\n' { // backslash-newline joins lines
				word.WriteRune(r[i])
				inWord = true
			}
		case c == '\'':
			j := i + 1
			for j < len(r) && r[j] != '\'' {
				j++
			}
			if j >= len(r) {
				return nil, errors.New("shell line: unterminated single quote")
			}
			word.WriteString(string(r[i+1 : j]))
			inWord, i = true, j
		case c == '"':
			j, err := doubleQuoted(r, i+1, &word)
			if err != nil {
				return nil, err
			}
			inWord, i = true, j
		case c == '$' || c == '`':
			return nil, refuse("expansion", c)
		case c == '*' || c == '?' || c == '[':
			return nil, refuse("glob", c)
		case c == '{' || c == '}':
			return nil, refuse("brace expansion", c)
		case c == '~' && !inWord:
			return nil, refuse("tilde expansion", c)
		case c == '#' && !inWord:
			return nil, refuse("comment", c)
		case strings.ContainsRune("<>|&;()", c):
			return nil, refuse("redirection or control operator", c)
		default:
			word.WriteRune(c)
			inWord = true
		}
	}
	end()
	return words, nil
}

// doubleQuoted writes to word the double-quoted text that starts at r[i],
// after its opening quote, and returns the index of its closing quote.
func doubleQuoted(r []rune, i int, word *strings.Builder) (int, error) {
	for ; i < len(r) && r[i] != '"'; i++ {
		switch r[i] {
		case '$', '`':
			return 0, fmt.Errorf("shell line: %q inside double quotes would expand: use single quotes", r[i])
		case '\\':
			if i+1 < len(r) && strings.ContainsRune("$`\"\\\n", r[i+1]) {
				i++
				if r[i] != '\n' {
					word.WriteRune(r[i])
				}
				continue
			}
		}
		word.WriteRune(r[i])
	}
	if i >= len(r) {
		return 0, errors.New("shell line: unterminated double quote")
	}
	return i, nil
}
