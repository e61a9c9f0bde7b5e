package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/limits/seccomp"
)

// seccompOptions are seccomp's flags.
type seccompOptions struct{ format oneOf }

func seccompCommand(s *session) *cli.Command {
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
				_, err := s.stdout.Write(seccomp.Profile())
				return err
			}
			return writeSeccompTable(s.stdout, seccomp.Profile())
		},
	}
}

// tableWidth is where seccomp --format table wraps its lines, and
// tableIndent the column the syscalls and reasons start at, past the
// action.
const (
	tableWidth  = 100
	tableIndent = 12
)

// seccompRule is one rule of the profile as the JSON spells it.
type seccompRule struct {
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
}

// writeSeccompTable prints the profile's rules from the JSON itself (what
// a reviewer reads is what docker gets): each rule's action, its syscalls
// and conditions, then its reason indented below, wrapped at tableWidth
// so the table reads in a terminal.
func writeSeccompTable(w io.Writer, profile []byte) error {
	var p struct {
		DefaultAction   string        `json:"defaultAction"`
		DefaultErrnoRet *uint         `json:"defaultErrnoRet"`
		Syscalls        []seccompRule `json:"syscalls"`
	}
	if err := json.Unmarshal(profile, &p); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s%s\n", tableIndent, "ACTION", "SYSCALLS (the rule's reason below them)")
	for _, r := range p.Syscalls {
		action := "allow"
		if r.ErrnoRet != nil {
			action = fmt.Sprintf("errno %d", *r.ErrnoRet)
		}
		writeTableRule(&b, action, ruleSyscalls(r), r.Comment)
	}
	def := p.DefaultAction
	if p.DefaultErrnoRet != nil {
		def = fmt.Sprintf("errno %d", *p.DefaultErrnoRet)
	}
	writeTableRule(&b, def, "(every other syscall)",
		fmt.Sprintf("%d allowed in all, sha256 %s", len(seccomp.Allowed()), seccomp.SHA256()))
	_, err := io.WriteString(w, b.String())
	return err
}

// ruleSyscalls is a rule's syscalls and, if any, the conditions on their
// arguments.
func ruleSyscalls(r seccompRule) string {
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
	return names
}

// writeTableRule writes one rule: the action, then its syscalls wrapped
// at tableIndent, then its reason wrapped two columns further in.
func writeTableRule(b *strings.Builder, action, syscalls, why string) {
	lines := wrapWords(syscalls, tableWidth-tableIndent)
	for i, l := range lines {
		head := ""
		if i == 0 {
			head = action
		}
		fmt.Fprintf(b, "%-*s%s\n", tableIndent, head, l)
	}
	for _, l := range wrapWords(why, tableWidth-tableIndent-2) {
		fmt.Fprintf(b, "%*s%s\n", tableIndent+2, "", l)
	}
}

// wrapWords breaks s into lines of at most width columns at spaces; a
// word longer than width gets a line of its own, whole.
func wrapWords(s string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
