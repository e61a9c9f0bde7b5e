package cli

import (
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation"
)

func doctorCommand() *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "check that this engine enforces every boundary (exit 0 only if all pass)",
		Flags: append([]cli.Flag{
			imageFlag("also check this image `ID` and run its --selfcheck under run's exact argv"),
			memoryFlag("memory `SIZE` the selfcheck expects to see"),
			runtimeFlag(),
			reportFormatFlag(),
		}, engineFlags()...),
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			format := format(c)
			o, err := optionsFromFlags(c)
			if err != nil {
				return err
			}
			checks := isolation.Doctor(c.Context, o)
			ok := true
			for _, ch := range checks {
				ok = ok && ch.OK
			}
			w := c.App.Writer
			if format == "json" {
				b, _ := json.Marshal(struct {
					OK     bool              `json:"ok"`
					Checks []isolation.Check `json:"checks"`
				}{ok, checks})
				fmt.Fprintf(w, "%s\n", b)
			} else {
				for _, ch := range checks {
					status := "PASS"
					if !ch.OK {
						status = "FAIL"
					}
					fmt.Fprintf(w, "%s  %-18s %s\n", status, ch.Name, ch.Detail)
				}
			}
			if !ok {
				return &silentError{code: exitFailedCheck}
			}
			return nil
		},
	}
}
