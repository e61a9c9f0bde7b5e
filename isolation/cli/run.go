package cli

import (
	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation"
)

func runCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run untrusted code in a fresh locked-down container and print one verdict",
		ArgsUsage: "[-- CMD ARGS...]  (an interpreter in the image, fed the source on stdin)",
		Description: "Runs the source in a fresh container under the fixed policy, once the container's runner has\n" +
			"proven the policy from inside, and prints one JSON verdict.\n\nExit status:\n" + exitStatusText(),
		Flags: append(append(runFlags(), sourceFlags()...), formatFlag()),
		Action: func(c *cli.Context) error {
			format := format(c)
			o, err := optionsFromFlags(c)
			if err != nil {
				return report(c, format, rejectedResult(err), err)
			}
			src, err := readSource(c)
			if err != nil {
				return report(c, format, rejectedResult(err), err)
			}
			res, err := isolation.Run(c.Context, isolation.Request{Source: src}, o)
			if isRejected(err) {
				// Refused before anything started: the CLI's own rejected
				// result, which names a bad option as its flag (--memory).
				// Every other Result is the library's, as it is.
				res = rejectedResult(err)
			}
			return report(c, format, res, err)
		},
	}
}
