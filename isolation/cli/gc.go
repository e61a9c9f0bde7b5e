package cli

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation"
)

func gcCommand() *cli.Command {
	return &cli.Command{
		Name:  "gc",
		Usage: "remove containers left by a killed run (its supervisor gone, or its deadline passed; all with --all)",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "remove every container with the tool's labels, running or not", DisableDefaultText: true},
			&cli.BoolFlag{Name: "dry-run", Usage: "list what would be removed; remove nothing", DisableDefaultText: true},
			reportFormatFlag(),
		}, engineFlags()...),
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			format := format(c)
			found, err := isolation.GC(c.Context, isolation.GCOptions{
				Engine: engine(c), All: c.Bool("all"), DryRun: c.Bool("dry-run"),
			}, time.Now())
			w := c.App.Writer
			if format == "json" {
				if found == nil {
					found = []isolation.Leftover{}
				}
				b, _ := json.Marshal(found)
				fmt.Fprintf(w, "%s\n", b)
			} else {
				for _, l := range found {
					verb := "removed"
					switch {
					case c.Bool("dry-run"):
						verb = "would remove"
					case !l.Removed:
						verb = "not removed"
					}
					fmt.Fprintf(w, "%s %s (run %s, %s, %s, deadline %s)\n", verb, l.Name, l.RunID, l.State, l.Why, l.Deadline.Format(time.RFC3339))
				}
			}
			return err
		},
	}
}
