package main

import (
	"context"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/interp"
	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/limits"
)

func evalCommand() *cli.Command {
	return &cli.Command{
		Name:  "eval",
		Usage: "evaluate trusted Starlark in-process, with no isolation",
		Description: "eval is for code you trust: it runs in this process, not in a container. For untrusted code use\n" +
			"   synapse-isolation run --image ID --code SRC. eval --sandbox refuses rather than delegate.",
		Flags: append(sourceFlags(),
			&cli.StringFlag{Name: "timeout", Value: limits.DefaultTimeout.String(), Usage: "stop the program after `DURATION`"},
			formatFlag(),
			&cli.BoolFlag{Name: "sandbox", Usage: "refused: eval never sandboxes (use run --image)"},
		),
		Action: func(c *cli.Context) error {
			// Checked before anything else: the source is neither read nor
			// parsed, and Docker is never consulted.
			if c.Bool("sandbox") {
				return rejectf("eval --sandbox: eval runs trusted code in-process and never delegates to Docker; " +
					"to isolate untrusted code use: synapse-isolation run --image ID --code SRC")
			}
			format, err := outputFormat(c)
			if err != nil {
				return err
			}
			timeout, err := limits.ParseTimeout(c.String("timeout"))
			if err != nil {
				return err
			}
			src, err := readSource(c)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(c.Context, timeout)
			defer cancel()
			start := time.Now()
			resp := interp.Eval(ctx, src, interp.Options{})
			res := isolation.ResultFromResponse(resp, time.Since(start))
			return printResult(c, format, res)
		},
	}
}
