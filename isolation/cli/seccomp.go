package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// seccompOptions are seccomp's flags.
type seccompOptions struct{ format oneOf }

func seccompCommand() *cli.Command {
	var o seccompOptions
	return &cli.Command{
		Name:  "seccomp",
		Usage: "print the seccomp profile every run uses, for review",
		Description: "With --format json (the default) it prints the profile exactly as run writes it to the\n" +
			"user's cache dir and docker sends it to the engine; with --format table, each rule with its reason.\n" +
			"Every syscall the profile does not allow is refused with EPERM.",
		Flags: []cli.Flag{enumFlag(&o.format, "format", "output `FORMAT`", "json", "table")},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			if o.format.value == "json" {
				// The profile's own bytes, as docker gets them: not
				// re-encoded.
				_, err := c.App.Writer.Write(limits.SeccompProfile())
				return err
			}
			return writeSeccompTable(c, limits.SeccompProfile())
		},
	}
}

// writeSeccompTable prints the profile's rules, one line each, from the
// JSON itself: what a reviewer reads is what docker gets.
func writeSeccompTable(c *cli.Context, profile []byte) error {
	var p struct {
		DefaultAction   string `json:"defaultAction"`
		DefaultErrnoRet *uint  `json:"defaultErrnoRet"`
		Syscalls        []struct {
			Names    []string `json:"names"`
			Action   string   `json:"action"`
			ErrnoRet *uint    `json:"errnoRet"`
			Comment  string   `json:"comment"`
			Args     []struct {
				Index    uint   `json:"index"`
				Value    uint64 `json:"value"`
				ValueTwo uint64 `json:"valueTwo"`
				Op       string `json:"op"`
			} `json:"args"`
		} `json:"syscalls"`
	}
	if err := json.Unmarshal(profile, &p); err != nil {
		return err
	}
	w := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "ACTION\tSYSCALLS\tWHY\n")
	for _, r := range p.Syscalls {
		action := "allow"
		if r.ErrnoRet != nil {
			action = fmt.Sprintf("errno %d", *r.ErrnoRet)
		}
		names := strings.Join(r.Names, " ")
		for i, a := range r.Args {
			names += map[bool]string{true: " if", false: " and"}[i == 0]
			switch a.Op {
			case "SCMP_CMP_MASKED_EQ":
				names += fmt.Sprintf(" arg%d & %#x == %#x", a.Index, a.Value, a.ValueTwo)
			case "SCMP_CMP_EQ", "SCMP_CMP_NE", "SCMP_CMP_GE":
				op := map[string]string{"SCMP_CMP_EQ": "==", "SCMP_CMP_NE": "!=", "SCMP_CMP_GE": ">="}[a.Op]
				names += fmt.Sprintf(" arg%d %s %#x", a.Index, op, a.Value)
			default:
				names += fmt.Sprintf(" arg%d %s %#x %#x", a.Index, a.Op, a.Value, a.ValueTwo)
			}
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", action, names, r.Comment)
	}
	def := p.DefaultAction
	if p.DefaultErrnoRet != nil {
		def = fmt.Sprintf("errno %d", *p.DefaultErrnoRet)
	}
	fmt.Fprintf(w, "%s\t(every other syscall)\t%d allowed in all, sha256 %s\n", def, len(limits.SeccompAllowed()), limits.SeccompSHA256())
	return w.Flush()
}
