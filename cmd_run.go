package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation"
)

func runCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run untrusted code in a fresh locked-down container and print one verdict",
		ArgsUsage: "[-- CMD ARGS...]  (an interpreter in the image, fed the source on stdin)",
		Flags:     append(append(runFlags(), sourceFlags()...), formatFlag()),
		Action: func(c *cli.Context) error {
			format, err := outputFormat(c)
			if err != nil {
				return err
			}
			o, err := optionsFromFlags(c)
			if err != nil {
				return err
			}
			src, err := readSource(c)
			if err != nil {
				return err
			}
			res, runErr := isolation.Run(c.Context, isolation.Request{Source: src}, o)
			if res.Verdict == isolation.Rejected {
				return &rejected{err: runErr}
			}
			if runErr != nil {
				res.ExitCode = exitCode(runErr) // 128+signal for an interrupted run
				fmt.Fprintf(c.App.ErrWriter, "synapse-isolation: %v\n", runErr)
			}
			return printResult(c, format, res)
		},
	}
}
