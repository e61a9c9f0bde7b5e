package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/dockerargs"
)

// maxAuditInput bounds the JSON argv read from stdin.
const maxAuditInput = 1 << 20

func auditCommand() *cli.Command {
	return &cli.Command{
		Name:      "audit",
		Usage:     "check a docker run argv against the policy (exit 0 compliant, 1 not)",
		ArgsUsage: "-- docker run ARGS...  (or a JSON array of strings on stdin)",
		Flags: []cli.Flag{
			reportFormatFlag(),
		},
		Action: func(c *cli.Context) error {
			format, err := formatChoice(c, "text", "json")
			if err != nil {
				return err
			}
			argv := c.Args().Slice()
			if len(argv) == 0 {
				var err error
				if argv, err = readArgvJSON(c.App.Reader); err != nil {
					return err
				}
			}
			r := dockerargs.Audit(argv)
			w := c.App.Writer
			if format == "json" {
				b, _ := json.MarshalIndent(struct {
					Compliant bool `json:"compliant"`
					dockerargs.Report
				}{r.Compliant(), r}, "", "  ")
				fmt.Fprintf(w, "%s\n", b)
			} else {
				for _, f := range r.Findings {
					fmt.Fprintf(w, "%-9s %-22s %s\n", strings.ToUpper(string(f.Status)), f.Boundary, f.Detail)
				}
				if r.Compliant() {
					fmt.Fprintln(w, "compliant")
				} else {
					fmt.Fprintf(w, "not compliant: %d of %d boundaries missing or violated\n", len(r.Problems()), len(r.Findings))
				}
			}
			if !r.Compliant() {
				return &silentError{code: exitNotCompliant}
			}
			return nil
		},
	}
}

func readArgvJSON(r io.Reader) ([]string, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxAuditInput+1))
	if err != nil {
		return nil, rejectf("reading stdin: %w", err)
	}
	if len(b) > maxAuditInput {
		return nil, rejectf("stdin: argv JSON larger than %d bytes", maxAuditInput)
	}
	var argv []string
	if err := json.Unmarshal(b, &argv); err != nil {
		return nil, rejectf("stdin: want a JSON array of strings (or the argv after --): %v", err)
	}
	if len(argv) == 0 {
		return nil, rejectf("stdin: empty argv")
	}
	return argv, nil
}
