package cli

import (
	"errors"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation/cli/internal/inproc"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// evalOptions are eval's flags.
type evalOptions struct {
	source  sourceOptions
	timeout limits.Duration
	format  oneOf
	sandbox bool
}

func evalCommand(s *session) *cli.Command {
	var o evalOptions
	return &cli.Command{
		Name:  "eval",
		Usage: "evaluate trusted Starlark in-process, with no isolation",
		Description: "eval is for code you trust: it runs in this process, not in a container. For untrusted code use\n" +
			"   synapse-isolation run --image ID --code SRC. eval --sandbox refuses rather than delegate.\n\n" +
			"Exit status: " + shortExitText(protocol.OK, protocol.ProgramError, protocol.Rejected, protocol.Timeout) + "; rejected is bad flags or input, and --sandbox.",
		Flags: append(o.source.flags(),
			durationFlag(&o.timeout, "timeout", limits.DefaultTimeout, "stop the program after `DURATION`"),
			formatFlag(&o.format),
			&cli.BoolFlag{Name: "sandbox", Usage: "refused: eval never sandboxes (use run --image)", DisableDefaultText: true, Destination: &o.sandbox},
		),
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return s.reject(c.Context, resultOut{format: o.format.value}, s.line.usageError(err))
		},
		Action: func(c *cli.Context) error {
			inv, err := o.invocation(c, s)
			if err != nil {
				return s.reject(c.Context, inv.out, err)
			}
			res, err := inproc.Eval(c.Context, inv.src, inv.timeout)
			if isRejected(err) {
				return s.reject(c.Context, inv.out, asWritten(c, err))
			}
			return s.report(c.Context, inv.out, res, nil)
		},
	}
}

// evalInvocation is one evaluation as its flags ask for it.
type evalInvocation struct {
	src     string
	timeout time.Duration
	out     resultOut
}

// invocation reads the program; out is set even on error.
func (o *evalOptions) invocation(c *cli.Context, s *session) (inv evalInvocation, err error) {
	inv.out.format, inv.timeout = o.format.value, time.Duration(o.timeout)
	// Checked before anything else: the source is neither read nor
	// parsed, and Docker is never consulted.
	if o.sandbox {
		return inv, errors.New("eval --sandbox: eval runs trusted code in-process and never delegates to Docker; " +
			"to isolate untrusted code use: synapse-isolation run --image ID --code SRC")
	}
	if err := noArgs(c); err != nil {
		return inv, err
	}
	inv.src, inv.out.program, err = o.source.read(c, s)
	return inv, err
}
