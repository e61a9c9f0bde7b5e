package cli

import (
	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation"
)

// runOptions are run's flags.
type runOptions struct {
	sandbox sandboxOptions
	source  sourceOptions
	input   inputOptions
	format  oneOf
}

func runCommand() *cli.Command {
	var o runOptions
	return &cli.Command{
		Name:      "run",
		Usage:     "run untrusted code in a fresh locked-down container and print one verdict",
		ArgsUsage: "[-- CMD ARGS...]  (an interpreter in the image; its first - is the source's path)",
		Description: "Runs the source in a fresh container under the fixed policy, once the container's runner has\n" +
			"proven the policy from inside, and prints one JSON verdict.\n\nExit status:\n" + exitStatusText(),
		Flags:        append(append(append(o.sandbox.runFlags(), o.source.flags()...), o.input.flags()...), formatFlag(&o.format)),
		OnUsageError: resultUsageError,
		Action:       func(c *cli.Context) error { return runAction(c, &o) },
	}
}

func runAction(c *cli.Context, o *runOptions) error {
	format := o.format.value
	opts, err := o.sandbox.options(c)
	if err != nil {
		return reportRejected(c, format, err)
	}
	if err := o.input.conflict(c, &o.source); err != nil {
		return reportRejected(c, format, err)
	}
	src, err := o.source.read(c)
	if err != nil {
		return reportRejected(c, format, err)
	}
	stdin, files, err := o.input.read(c)
	if err != nil {
		return reportRejected(c, format, err)
	}
	res, err := isolation.Run(c.Context, isolation.Request{Source: src, Stdin: stdin, Files: files}, opts)
	if isRejected(err) {
		// Refused before anything started: the CLI's own rejected
		// result, which names a bad option as its flag (--memory).
		// Every other Result is the library's, as it is.
		res = rejectedResult(err)
	}
	return report(c, format, res, err)
}
