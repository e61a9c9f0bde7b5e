package main

import (
	"errors"
	"time"

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
			format, err := formatChoice(c)
			if err != nil {
				return report(c, "json", rejectedResult(err), err)
			}
			o, err := optionsFromFlags(c)
			if err != nil {
				return report(c, format, rejectedResult(err), err)
			}
			src, err := readSource(c)
			if err != nil {
				return report(c, format, rejectedResult(err), err)
			}
			// Bad options are refused here, by the library's one validator,
			// so the CLI names them as flags (--memory) in its own result;
			// the library's Result for a run is then final as it is.
			if _, err := isolation.Argv(o, time.Time{}); isRejected(err) {
				return report(c, format, rejectedResult(err), err)
			}
			res, err := isolation.Run(c.Context, isolation.Request{Source: src}, o)
			return report(c, format, res, err)
		},
	}
}

// isRejected reports whether err is the library's refusal of bad options
// or input (any other failure, a cache dir it cannot use say, is left to
// Run, which reports it with its own verdict).
func isRejected(err error) bool {
	var ie *isolation.Error
	return errors.As(err, &ie) && ie.Verdict == isolation.Rejected
}
