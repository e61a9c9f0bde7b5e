package cli

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// doctorOptions are doctor's flags: the run's options it checks (image,
// memory, timeout, runtime, engine) and how to print the report.
type doctorOptions struct {
	sandbox sandboxOptions
	format  oneOf
}

func doctorCommand(s *session) *cli.Command {
	var o doctorOptions
	return &cli.Command{
		Name:  "doctor",
		Usage: "check that this engine enforces every boundary (exit 0 only if all pass)",
		Flags: append([]cli.Flag{
			imageFlag(&o.sandbox.image, "also check this image `ID` and run its --selfcheck under run's exact argv"),
			memoryFlag(&o.sandbox.memory, "memory `SIZE` the selfcheck expects to see"),
			o.sandbox.timeoutFlag("wall-clock limit `DURATION` of the selfcheck's run, its container's start included; raise it on a slow host"),
			runtimeFlag(&o.sandbox.runtime),
			reportFormatFlag(&o.format),
		}, o.sandbox.engineFlags()...),
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			opts, err := o.sandbox.checked(c, s)
			if err == nil {
				err = checkDoctorOptions(opts)
			}
			if err != nil {
				return err
			}
			if !writeDoctor(s.stdout, o.format.value, isolation.Doctor(c.Context, opts)) {
				return &silentError{code: exitFailedCheck}
			}
			return nil
		},
	}
}

// checkDoctorOptions refuses, as run would, an image, runtime or context
// run could not take (its limits are checked already): a doctor must not
// pass an engine for options no run can use, nor fail a check for a typo.
// The image is optional here: without one the engine alone is checked.
func checkDoctorOptions(o isolation.Options) error {
	if o.Image != "" {
		if err := limits.CheckImageID(o.Image); err != nil {
			return err
		}
	}
	for _, f := range []struct{ field, value string }{{"runtime", o.Runtime}, {"context", o.Engine.Context}} {
		if f.value == "" {
			continue
		}
		if err := limits.CheckName(f.field, f.value); err != nil {
			return err
		}
	}
	return nil
}

// writeDoctor prints the checks, one line each or as one JSON object,
// and reports whether all of them passed.
func writeDoctor(w io.Writer, format string, checks []isolation.Check) (ok bool) {
	ok = true
	for _, ch := range checks {
		ok = ok && ch.OK
	}
	if format == "json" {
		_ = writeJSON(w, struct {
			OK     bool              `json:"ok"`
			Checks []isolation.Check `json:"checks"`
		}{ok, checks})
		return ok
	}
	for _, ch := range checks {
		status := "PASS"
		switch {
		case !ch.OK:
			status = "FAIL"
		case ch.Skipped:
			status = "SKIP"
		}
		fmt.Fprintf(w, "%s  %-18s %s\n", status, ch.Name, oneLine(ch.Detail)) // the detail quotes what the container said
	}
	return ok
}
