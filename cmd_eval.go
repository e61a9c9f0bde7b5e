package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/isolation/interp"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
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
			&cli.StringFlag{Name: "timeout", Value: limits.DefaultTimeout.String(), Usage: "stop the program after `DURATION`"},
			formatFlag(),
			&cli.BoolFlag{Name: "sandbox", Usage: "refused: eval never sandboxes (use run --image)", DisableDefaultText: true},
		),
		Action: func(c *cli.Context) error {
			format, ferr := formatChoice(c)
			if ferr != nil {
				format = "json"
			}
			reject := func(err error) error { return report(c, format, rejectedResult(err), err) }
			// Checked before anything else: the source is neither read nor
			// parsed, and Docker is never consulted.
			if c.Bool("sandbox") {
				return reject(errors.New("eval --sandbox: eval runs trusted code in-process and never delegates to Docker; " +
					"to isolate untrusted code use: synapse-isolation run --image ID --code SRC"))
			}
			if ferr != nil {
				return reject(ferr)
			}
			if err := noArgs(c); err != nil {
				return reject(err)
			}
			timeout, err := limits.ParseTimeout(c.String("timeout"))
			if err == nil {
				err = limits.CheckTimeout(timeout)
			}
			if err != nil {
				return reject(err)
			}
			src, err := readSource(c)
			if err == nil {
				err = protocol.CheckSource(src, true)
			}
			if err != nil {
				return reject(err)
			}
			ctx, cancel := context.WithTimeout(c.Context, timeout)
			defer cancel()
			start := time.Now()
			res := evalResult(interp.Eval(ctx, src, interp.Options{}), time.Since(start))
			if res.Verdict == isolation.Timeout {
				res.Error.Message = fmt.Sprintf("stopped at the --timeout of %s", timeout)
			}
			return report(c, format, res, nil)
		},
	}
}

// evalErrorTypes spells the evaluator's failure kinds as run does.
var evalErrorTypes = map[interp.ErrorKind]string{
	interp.Syntax:    protocol.ErrSyntax,
	interp.Runtime:   protocol.ErrRuntime,
	interp.Cancelled: protocol.ErrTimeout,
}

// evalResult gives an in-process evaluation the shape of a run's result:
// ok, program_error, or timeout (its partial output discarded, as run does).
func evalResult(r interp.Result, took time.Duration) isolation.Result {
	res := isolation.Result{
		Verdict: isolation.OK, Result: r.Value, ResultType: r.Type, ResultRepr: r.Repr,
		Output: r.Output, OutputTruncated: r.OutputTruncated, OutputBytes: r.OutputBytes, DurationMS: took.Milliseconds(),
	}
	if r.Err != nil {
		res.Verdict = isolation.ProgramError
		res.Error = &protocol.Error{Type: evalErrorTypes[r.Err.Kind], Message: r.Err.Msg, Line: r.Err.Line, Col: r.Err.Col}
		if r.Err.Kind == interp.Cancelled {
			res.Verdict = isolation.Timeout
			res.Output, res.OutputTruncated, res.OutputBytes = "", false, 0
		}
	}
	res.ExitCode = res.Verdict.ExitCode()
	return res
}
