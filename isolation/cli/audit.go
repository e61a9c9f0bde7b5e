package cli

import (
	"encoding/json"
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

func auditCommand() *cli.Command {
	return &cli.Command{
		Name:  "audit",
		Usage: fmt.Sprintf("check a docker run argv against the policy (exit 0 compliant, %d not, %d unreadable)", exitFailedCheck, status(isolation.Rejected)),
		ArgsUsage: "-- docker run ARGS...  (or, on stdin, the argv as `argv` prints it: shell, json or lines)\n\n" +
			"   synapse-isolation argv --format F ... | synapse-isolation audit   audits any of the three",
		Flags: []cli.Flag{
			reportFormatFlag(),
			enumFlag("input", "stdin `FORM`", "auto", "shell", "json", "lines"),
			&cli.StringSliceFlag{Name: "allow-runtime", Usage: "accept OCI runtime `NAME` (repeatable); any other --runtime is a finding"},
			&cli.StringFlag{Name: "cli", Value: "docker", Usage: "the client `BINARY` the argv must start with"},
		},
		Action: func(c *cli.Context) error {
			format := format(c)
			r, err := auditArgv(c)
			if err != nil {
				if format == "json" {
					// Scripts reading JSON get JSON for every outcome.
					b, _ := json.Marshal(map[string]any{"compliant": false,
						"error": map[string]string{"type": "rejected", "message": message(err)}})
					fmt.Fprintf(c.App.Writer, "%s\n", b)
				}
				return err
			}
			writeAudit(c.App.Writer, format, r)
			if !r.Compliant() {
				return &silentError{code: exitFailedCheck}
			}
			return nil
		},
	}
}

// auditArgv reads the argv (after -- or on stdin) and audits it.
func auditArgv(c *cli.Context) (dockerargs.Report, error) {
	argv := c.Args().Slice()
	switch {
	case len(argv) > 0 && !afterDashes(c):
		return dockerargs.Report{}, rejectf("unexpected argument %q: the argv to audit goes after --, as in: audit -- docker run ...", argv[0])
	case len(argv) == 0:
		var err error
		if argv, err = readAuditInput(c); err != nil {
			return dockerargs.Report{}, err
		}
	}
	o := dockerargs.AuditOptions{CLI: c.String("cli"), AllowRuntimes: c.StringSlice("allow-runtime"), Seccomp: map[string]dockerargs.ProfileFile{}}
	for _, path := range dockerargs.SeccompPaths(argv, o.CLI) {
		o.Seccomp[path] = readProfile(path)
	}
	r, err := dockerargs.Audit(argv, o)
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
func readAuditInput(c *cli.Context) ([]string, error) {
	form := enum(c, "input")
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
		b, _ := json.Marshal(struct {
			Compliant bool `json:"compliant"`
			dockerargs.Report
		}{r.Compliant(), r})
		fmt.Fprintf(w, "%s\n", b)
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
