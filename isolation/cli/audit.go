package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

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

func auditCommand() *cli.Command {
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
		Action: func(c *cli.Context) error { return auditAction(c, &o) },
	}
}

func auditAction(c *cli.Context, o *auditOptions) error {
	r, err := o.audit(c)
	if err != nil {
		if o.format.value == "json" {
			// Scripts reading JSON get JSON for every outcome.
			_ = writeJSON(c.App.Writer, map[string]any{"compliant": false,
				"error": map[string]string{"type": "rejected", "message": message(err)}})
		}
		return err
	}
	writeAudit(c.App.Writer, o.format.value, r)
	if !r.Compliant() {
		return &silentError{code: exitFailedCheck}
	}
	return nil
}

// audit reads the argv (after -- or on stdin) and audits it.
func (o *auditOptions) audit(c *cli.Context) (dockerargs.Report, error) {
	argv := c.Args().Slice()
	switch {
	case len(argv) > 0 && !afterDashes(c):
		return dockerargs.Report{}, rejectf("unexpected argument %q: the argv to audit goes after --, as in: audit -- docker run ...", argv[0])
	case len(argv) == 0:
		var err error
		if argv, err = readAuditInput(c, o.input.value); err != nil {
			return dockerargs.Report{}, err
		}
	}
	ao := dockerargs.AuditOptions{CLI: o.cli, AllowRuntimes: o.allowRuntimes.Value(), Seccomp: map[string]dockerargs.ProfileFile{}}
	for _, path := range dockerargs.SeccompPaths(argv, ao.CLI) {
		ao.Seccomp[path] = readProfile(path)
	}
	r, err := dockerargs.Audit(argv, ao)
	if err != nil {
		return dockerargs.Report{}, &rejected{err: err}
	}
	return r, nil
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
func readAuditInput(c *cli.Context, form string) ([]string, error) {
	if isTerminal(c.App.Reader) {
		_ = cli.ShowCommandHelp(c, "audit")
		return nil, rejectf("audit: no argv after -- and stdin is a terminal")
	}
	b, err := io.ReadAll(io.LimitReader(c.App.Reader, maxAuditInput+1))
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
