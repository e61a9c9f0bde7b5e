package dockerargs

import (
	"errors"
	"fmt"
	"strings"
)

// shellJoin quotes each argument for a POSIX shell so the line, pasted into
// sh, yields exactly the same argv.
func shellJoin(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = Quote(a)
	}
	return strings.Join(out, " ")
}

// Quote quotes s for a POSIX shell: as it is when it holds only characters
// no shell interprets, else in single quotes.
func Quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
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
	l := &shellLine{r: []rune(s)}
	for i := 0; i < len(l.r); i++ {
		last, done, err := l.step(i)
		if err != nil {
			return nil, err
		}
		if done {
			return l.words, nil
		}
		i = last
	}
	l.end()
	return l.words, nil
}

// shellLine is a shell line being split: the words so far and the one
// being read.
type shellLine struct {
	r      []rune
	words  []string
	word   strings.Builder
	inWord bool
}

// end ends the word being read, if any.
func (l *shellLine) end() {
	if l.inWord {
		l.words = append(l.words, l.word.String())
	}
	l.word.Reset()
	l.inWord = false
}

// add adds s to the word being read.
func (l *shellLine) add(s string) {
	l.word.WriteString(s)
	l.inWord = true
}

// step reads the unquoted character at i, and any quoted text or escape
// that it starts. It returns the index of the last character it read;
// done is true at the unquoted newline that ends the line.
func (l *shellLine) step(i int) (last int, done bool, err error) {
	r := l.r
	switch c := r[i]; c {
	case ' ', '\t':
		l.end()
	case '\n':
		l.end()
		if strings.TrimSpace(string(r[i:])) != "" {
			return 0, false, errors.New("shell line: more than one command (an unquoted newline ends one)")
		}
		return i, true, nil
	case '\\':
		if i+1 >= len(r) {
			return 0, false, errors.New("shell line: ends with a lone backslash")
		}
		if r[i+1] != '\n' { // backslash-newline joins lines
			l.add(string(r[i+1]))
		}
		return i + 1, false, nil
	case '\'':
		j := i + 1
		for j < len(r) && r[j] != '\'' {
			j++
		}
		if j >= len(r) {
			return 0, false, errors.New("shell line: unterminated single quote")
		}
		l.add(string(r[i+1 : j]))
		return j, false, nil
	case '"':
		j, err := doubleQuoted(r, i+1, &l.word)
		if err != nil {
			return 0, false, err
		}
		l.inWord = true
		return j, false, nil
	default:
		if err := l.refuse(c); err != nil {
			return 0, false, err
		}
		l.add(string(c))
	}
	return i, false, nil
}

// refuse refuses an unquoted character that the shell would expand or
// interpret rather than pass on.
func (l *shellLine) refuse(c rune) error {
	what := ""
	switch {
	case c == '$' || c == '`':
		what = "expansion"
	case c == '*' || c == '?' || c == '[':
		what = "glob"
	case c == '{' || c == '}':
		what = "brace expansion"
	case c == '~' && !l.inWord:
		what = "tilde expansion"
	case c == '#' && !l.inWord:
		what = "comment"
	case strings.ContainsRune("<>|&;()", c):
		what = "redirection or control operator"
	default:
		return nil
	}
	return fmt.Errorf("shell line: unquoted %q (%s) is refused: quote it, or give the argv as JSON", c, what)
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
