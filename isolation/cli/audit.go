package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/dockerargs"
	"github.com/synapse-lang/synapse-isolation/isolation"
)

// maxAuditInput bounds the argv read from stdin.
const maxAuditInput = 1 << 20

// auditOptions are audit's flags.
type auditOptions struct {
	format        oneOf
	input         oneOf
	allowRuntimes cli.StringSlice
	cli           string
}

func auditCommand(s *session) *cli.Command {
	var o auditOptions
	return &cli.Command{
		Name:  "audit",
		Usage: fmt.Sprintf("check a docker run argv against the policy (exit 0 compliant, %d not, %d unreadable)", exitFailedCheck, status(isolation.Rejected)),
		ArgsUsage: "-- docker run ARGS...  (or, on stdin, the argv as `argv` prints it: shell, json or lines)\n\n" +
			"   synapse-isolation argv --format F ... | synapse-isolation audit   audits any of the three",
		Flags: []cli.Flag{
			reportFormatFlag(&o.format),
			enumFlag(&o.input, "input", "stdin `FORM`", "auto", "shell", "json", "lines"),
			&cli.StringSliceFlag{Name: "allow-runtime", Usage: "accept OCI runtime `NAME` (repeatable); any other --runtime is a finding",
				Destination: &o.allowRuntimes},
			cliFlag(&o.cli, "the client `BINARY` the argv must start with", false),
		},
		Action: func(c *cli.Context) error {
			argv, err := o.argv(c, s)
			if err != nil {
				return o.refuse(s, err)
			}
			r, err := dockerargs.Audit(argv, o.auditOptions(argv))
			if err != nil {
				return o.refuse(s, &rejected{err: err})
			}
			writeAudit(s.stdout, o.format.value, r)
			if !r.Compliant() {
				return &silentError{code: exitFailedCheck}
			}
			return nil
		},
	}
}

// refuse returns err, an argv that could not be audited, having printed
// it as JSON if that is the format: scripts reading JSON get JSON for
// every outcome.
func (o *auditOptions) refuse(s *session, err error) error {
	if o.format.value == "json" {
		_ = writeJSON(s.stdout, map[string]any{"compliant": false, "error": map[string]string{"type": "rejected", "message": message(err)}})
	}
	return err
}

// argv is the argv to audit: after --, or on stdin.
func (o *auditOptions) argv(c *cli.Context, s *session) ([]string, error) {
	argv := c.Args().Slice()
	switch {
	case len(argv) > 0 && !s.line.afterDashes(argv):
		return nil, rejectf("unexpected argument %q: the argv to audit goes after --, as in: audit -- docker run ...", argv[0])
	case len(argv) == 0:
		return readAuditInput(c, s.stdin, o.input.value)
	}
	return argv, nil
}

// auditOptions are the flags as the audit takes them, with the seccomp
// profiles argv names read as the docker client would.
func (o *auditOptions) auditOptions(argv []string) dockerargs.AuditOptions {
	ao := dockerargs.AuditOptions{CLI: o.cli, AllowRuntimes: o.allowRuntimes.Value(), Seccomp: map[string]dockerargs.ProfileFile{}}
	for _, path := range dockerargs.SeccompPaths(argv, ao.CLI) {
		ao.Seccomp[path] = readProfile(path)
	}
	return ao
}

// maxProfileBytes bounds a seccomp profile file the audit reads; the
// policy's is a few KiB.
const maxProfileBytes = 1 << 20

// readProfile reads a seccomp profile file named in an audited argv, as the
// docker client would (a relative path from the working directory).
func readProfile(path string) dockerargs.ProfileFile {
	f, err := os.Open(path)
	if err != nil {
		return dockerargs.ProfileFile{Err: err}
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxProfileBytes+1))
	switch {
	case err != nil:
		return dockerargs.ProfileFile{Err: err}
	case len(b) > maxProfileBytes:
		return dockerargs.ProfileFile{Err: fmt.Errorf("larger than %d bytes", maxProfileBytes)}
	}
	return dockerargs.ProfileFile{Content: b}
}

// readAuditInput reads the argv from stdin, bounded. From a terminal it
// prints the usage instead of waiting for input nobody is going to type.
func readAuditInput(c *cli.Context, stdin io.Reader, form string) ([]string, error) {
	if isTerminal(stdin) {
		_ = cli.ShowCommandHelp(c, "audit")
		return nil, rejectf("audit: no argv after -- and stdin is a terminal")
	}
	b, err := io.ReadAll(io.LimitReader(stdin, maxAuditInput+1))
	if err != nil {
		return nil, rejectf("reading stdin: %w", err)
	}
	if len(b) > maxAuditInput {
		return nil, rejectf("stdin: argv larger than %d bytes", maxAuditInput)
	}
	argv, err := readArgv(b, form)
	if err != nil {
		return nil, rejectf("stdin: %w", err)
	}
	return argv, nil
}

func writeAudit(w io.Writer, format string, r dockerargs.Report) {
	if format == "json" {
		_ = writeJSON(w, struct {
			Compliant bool `json:"compliant"`
			dockerargs.Report
		}{r.Compliant(), r})
		return
	}
	for _, f := range r.Findings {
		fmt.Fprintf(w, "%-9s %-22s %s\n", strings.ToUpper(string(f.Status)), f.Boundary, f.Detail)
	}
	if r.Compliant() {
		fmt.Fprintln(w, "compliant")
	} else {
		fmt.Fprintf(w, "not compliant: %d of %d boundaries missing or violated\n", len(r.Problems()), len(r.Findings))
	}
}

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
