package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/dockerargs"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
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
		Usage: fmt.Sprintf("check a docker run argv against the policy (exit 0 compliant, %d not, %d unreadable)", exitFailedCheck, status(protocol.Rejected)),
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
	argv, err := dockerargs.ReadText(b, form)
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
		fmt.Fprintf(w, "%-9s %-22s %s\n", strings.ToUpper(string(f.Status)), f.Boundary, oneLine(f.Detail)) // the detail quotes the argv audited
	}
	if r.Compliant() {
		fmt.Fprintln(w, "compliant")
	} else {
		fmt.Fprintf(w, "not compliant: %d of %d boundaries missing or violated\n", len(r.Problems()), len(r.Findings))
	}
}
