package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation"
)

// gcOptions are gc's flags.
type gcOptions struct {
	engine engineOptions
	all    bool
	dryRun bool
	format oneOf
}

func gcCommand(s *session) *cli.Command {
	var o gcOptions
	return &cli.Command{
		Name:  "gc",
		Usage: "remove containers left by a killed run (its supervisor gone, or its deadline passed; all with --all)",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "remove every container with the tool's labels, running or not", DisableDefaultText: true, Destination: &o.all},
			&cli.BoolFlag{Name: "dry-run", Usage: "list what would be removed; remove nothing", DisableDefaultText: true, Destination: &o.dryRun},
			reportFormatFlag(&o.format),
		}, o.engine.engineFlags()...),
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			found, err := isolation.GC(c.Context, isolation.GCOptions{Engine: o.engine.engine(s), All: o.all, DryRun: o.dryRun}, time.Now())
			writeGC(s.stdout, o.format.value, o.dryRun, found)
			if err == nil && len(found) == 0 && o.format.value != "json" {
				// Silence would read as a hang or a no-op; JSON says it with [].
				fmt.Fprintln(s.stderr, "gc: nothing to remove")
			}
			return err
		},
	}
}

// writeGC prints what gc found and did: one line a container, or a JSON
// array (empty, not null, when it found none).
func writeGC(w io.Writer, format string, dryRun bool, found []isolation.Leftover) {
	if format == "json" {
		if found == nil {
			found = []isolation.Leftover{}
		}
		_ = writeJSON(w, found)
		return
	}
	for _, l := range found {
		verb := "removed"
		switch {
		case dryRun:
			verb = "would remove"
		case !l.Removed:
			verb = "not removed"
		}
		// Names and labels are the engine's record, which any client of it may have set.
		fmt.Fprintf(w, "%s %s (run %s, %s, %s, deadline %s)\n", verb, oneLine(l.Name), oneLine(l.RunID), oneLine(l.State), oneLine(l.Why), l.Deadline.Format(time.RFC3339))
	}
}
