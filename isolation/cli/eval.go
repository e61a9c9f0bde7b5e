package cli

import (
	"errors"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/limits"
)

func evalCommand() *cli.Command {
	return &cli.Command{
		Name:  "eval",
		Usage: "evaluate trusted Starlark in-process, with no isolation",
		Description: "eval is for code you trust: it runs in this process, not in a container. For untrusted code use\n" +
			"   synapse-isolation run --image ID --code SRC. eval --sandbox refuses rather than delegate.\n\n" +
			"Exit status: " + shortExitText(isolation.OK, isolation.ProgramError, isolation.Rejected, isolation.Timeout) + "; rejected is bad flags or input, and --sandbox.",
		Flags: append(sourceFlags(),
			durationFlag("timeout", limits.DefaultTimeout, "stop the program after `DURATION`"),
			formatFlag(),
			&cli.BoolFlag{Name: "sandbox", Usage: "refused: eval never sandboxes (use run --image)", DisableDefaultText: true},
		),
		Action: func(c *cli.Context) error {
			format := format(c)
			reject := func(err error) error { return report(c, format, rejectedResult(err), err) }
			// Checked before anything the action reads: the source is
			// neither read nor parsed, and Docker is never consulted.
			if c.Bool("sandbox") {
				return reject(errors.New("eval --sandbox: eval runs trusted code in-process and never delegates to Docker; " +
					"to isolate untrusted code use: synapse-isolation run --image ID --code SRC"))
			}
			if err := noArgs(c); err != nil {
				return reject(err)
			}
			src, err := readSource(c)
			if err != nil {
				return reject(err)
			}
			res, err := isolation.Eval(c.Context, isolation.Request{Source: src}, duration(c, "timeout"))
			if isRejected(err) {
				return reject(err)
			}
			return report(c, format, res, nil)
		},
	}
}
