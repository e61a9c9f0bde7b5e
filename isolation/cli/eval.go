package cli

import (
	"errors"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/inproc"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// evalOptions are eval's flags.
type evalOptions struct {
	source  sourceOptions
	timeout limits.Duration
	format  oneOf
	sandbox bool
}

func evalCommand() *cli.Command {
	var o evalOptions
	return &cli.Command{
		Name:  "eval",
		Usage: "evaluate trusted Starlark in-process, with no isolation",
		Description: "eval is for code you trust: it runs in this process, not in a container. For untrusted code use\n" +
			"   synapse-isolation run --image ID --code SRC. eval --sandbox refuses rather than delegate.\n\n" +
			"Exit status: " + shortExitText(isolation.OK, isolation.ProgramError, isolation.Rejected, isolation.Timeout) + "; rejected is bad flags or input, and --sandbox.",
		Flags: append(o.source.flags(),
			durationFlag(&o.timeout, "timeout", limits.DefaultTimeout, "stop the program after `DURATION`"),
			formatFlag(&o.format),
			&cli.BoolFlag{Name: "sandbox", Usage: "refused: eval never sandboxes (use run --image)", DisableDefaultText: true, Destination: &o.sandbox},
		),
		OnUsageError: resultUsageError,
		Action:       func(c *cli.Context) error { return evalAction(c, &o) },
	}
}

func evalAction(c *cli.Context, o *evalOptions) error {
	format := o.format.value
	// Checked before anything the action reads: the source is neither
	// read nor parsed, and Docker is never consulted.
	if o.sandbox {
		return reportRejected(c, format, errors.New("eval --sandbox: eval runs trusted code in-process and never delegates to Docker; "+
			"to isolate untrusted code use: synapse-isolation run --image ID --code SRC"))
	}
	if err := noArgs(c); err != nil {
		return reportRejected(c, format, err)
	}
	src, err := o.source.read(c)
	if err != nil {
		return reportRejected(c, format, err)
	}
	res, err := inproc.Eval(c.Context, src, time.Duration(o.timeout))
	if isRejected(err) {
		return reportRejected(c, format, asWritten(c, err))
	}
	return report(c, format, res, nil)
}
