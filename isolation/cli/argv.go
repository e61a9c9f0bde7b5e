package cli

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/dockerargs"
	"github.com/synapse-lang/synapse-isolation/isolation"
)

// argvOptions are argv's flags: run's, so that the argv printed is the
// one run executes, and how to print it.
type argvOptions struct {
	sandbox sandboxOptions
	format  oneOf
	at      int64 // unix seconds; the clock when not given
}

func argvCommand(s *session) *cli.Command {
	var o argvOptions
	return &cli.Command{
		Name:      "argv",
		Usage:     "print the exact docker argv that run would execute",
		ArgsUsage: "[-- CMD ARGS...]",
		Flags: append(o.sandbox.runFlags(),
			enumFlag(&o.format, "format", "output `FORMAT`", "shell", "json", "lines"),
			&cli.Int64Flag{Name: "at", Usage: "render as if the run started at `UNIX_SECONDS` (with --name: reproducible output)", DefaultText: "now",
				Destination: &o.at}),
		Action: func(c *cli.Context) error {
			opts, err := o.sandbox.options(c, s)
			if err != nil {
				return err
			}
			inv := argvInvocation{opts: opts, format: o.format.value}
			if c.IsSet("at") { // --at 0 is 1970, not the clock
				inv.at = time.Unix(o.at, 0)
			}
			return inv.act(s)
		},
	}
}

// argvInvocation is what argv prints: the argv of a run with opts started
// at at (zero: now), in format.
type argvInvocation struct {
	opts   isolation.Options
	at     time.Time
	format string
}

func (inv argvInvocation) act(s *session) error {
	argv, err := inv.opts.Argv(inv.at)
	if err != nil {
		return err
	}
	text, err := dockerargs.Text(argv, inv.format)
	if err != nil {
		return err
	}
	fmt.Fprintln(s.stdout, text)
	return nil
}
