package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation"
)

func argvCommand() *cli.Command {
	return &cli.Command{
		Name:      "argv",
		Usage:     "print the exact docker argv that run would execute",
		ArgsUsage: "[-- CMD ARGS...]",
		Flags: append(runFlags(),
			enumFlag("format", "output `FORMAT`", "shell", "json", "lines"),
			&cli.Int64Flag{Name: "at", Usage: "render as if the run started at `UNIX_SECONDS` (with --name: reproducible output)", DefaultText: "now"}),
		Action: func(c *cli.Context) error {
			format := format(c)
			o, err := optionsFromFlags(c)
			if err != nil {
				return err
			}
			var at time.Time
			if c.IsSet("at") {
				at = time.Unix(c.Int64("at"), 0)
			}
			argv, err := isolation.Argv(o, at)
			if err != nil {
				return err
			}
			w := c.App.Writer
			switch format {
			case "json":
				b, _ := json.Marshal(argv)
				fmt.Fprintf(w, "%s\n", b)
			case "lines":
				fmt.Fprintln(w, strings.Join(argv, "\n"))
			default:
				fmt.Fprintln(w, shellJoin(argv))
			}
			return nil
		},
	}
}

// shellJoin quotes each argument for a POSIX shell so the line, pasted into
// sh, yields exactly the same argv.
func shellJoin(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = shellQuote(a)
	}
	return strings.Join(out, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}
