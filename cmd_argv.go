package main

import (
	"crypto/sha256"
	"encoding/hex"
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
			&cli.StringFlag{Name: "format", Value: "shell", Usage: "output `FORMAT`: shell, json or lines"},
			&cli.Int64Flag{Name: "at", Usage: "render as if the run started at `UNIX_SECONDS` (with --name: reproducible output)"}),
		Action: func(c *cli.Context) error {
			format, err := formatChoice(c)
			if err != nil {
				return err
			}
			o, err := optionsFromFlags(c)
			if err != nil {
				return err
			}
			now := time.Now()
			if c.IsSet("at") {
				// Pinned: the run id is derived, and the owner label, which
				// names the process that runs the container, is left out.
				now = time.Unix(c.Int64("at"), 0)
				o.RunID = pinnedRunID(o.Name, now)
			} else if self, err := isolation.SelfOwner(); err == nil {
				o.Owner = self.String()
			}
			plan, err := isolation.NewPlan(o, now)
			if err != nil {
				return &rejected{err: err}
			}
			w := c.App.Writer
			switch format {
			case "json":
				b, _ := json.Marshal(plan.Argv)
				fmt.Fprintf(w, "%s\n", b)
			case "lines":
				fmt.Fprintln(w, strings.Join(plan.Argv, "\n"))
			default:
				fmt.Fprintln(w, shellJoin(plan.Argv))
			}
			return nil
		},
	}
}

// pinnedRunID is the run id `argv --at` renders: derived from the name and
// the pinned time, so the same flags print the same argv. `run` always
// draws a fresh random id; this one only ever appears in a printed argv.
func pinnedRunID(name string, at time.Time) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("argv --at %d --name %s", at.Unix(), name)))
	return hex.EncodeToString(sum[:8])
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
