package cli

import (
	"context"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation"
)

// runOptions are run's flags.
type runOptions struct {
	sandbox sandboxOptions
	source  sourceOptions
	input   inputOptions
	files   filesOptions
	tests   testsOptions
	format  oneOf
}

func runCommand(s *session) *cli.Command {
	var o runOptions
	return &cli.Command{
		Name:        "run",
		Usage:       "run untrusted code in a fresh locked-down container and print one verdict",
		ArgsUsage:   "[-- CMD ARGS...]  (an interpreter in the image; its first - is the source's path)",
		Description: runDescription(),
		Flags: slices.Concat(o.sandbox.runFlags(), o.source.flags(), o.input.flags(), o.files.flags(), o.tests.flags(),
			[]cli.Flag{formatFlag(&o.format)}),
		// A bad flag gets its result too, in the format the flags set
		// before the one refused.
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return s.reject(c.Context, resultOut{format: o.format.value}, s.line.usageError(err))
		},
		Action: func(c *cli.Context) error {
			inv, err := o.invocation(c, s)
			if err != nil {
				return s.reject(c.Context, inv.out, err)
			}
			return inv.act(c.Context, s)
		},
	}
}

// runInvocation is one run as its flags ask for it, read and checked: the
// options and the request for isolation.Run, how to print the result and
// where the files that come back go.
type runInvocation struct {
	opts isolation.Options
	req  isolation.Request
	out  resultOut
	output
}

// invocation reads and checks everything the flags name, before anything
// runs; out is set even on error, the rejection's to print.
func (o *runOptions) invocation(c *cli.Context, s *session) (inv runInvocation, err error) {
	inv.out.format = o.format.value
	if inv.opts, err = o.sandbox.options(c, s); err != nil {
		return inv, err
	}
	if err = o.input.conflict(c, &o.source); err != nil {
		return inv, err
	}
	if err = o.files.check(); err != nil {
		return inv, err
	}
	if inv.req.Source, inv.out.program, err = o.source.read(c, s); err != nil {
		return inv, err
	}
	if err = o.input.read(c, s, &inv.req); err != nil {
		return inv, err
	}
	if err = o.tests.read(c, &inv.req); err != nil {
		return inv, err
	}
	inv.req.Collect, inv.output = o.files.patterns(), o.files.output
	return inv, nil
}

// act runs the request and prints its result.
func (inv runInvocation) act(ctx context.Context, s *session) error {
	res, err := isolation.Run(ctx, inv.req, inv.opts)
	if isRejected(err) {
		// Refused before anything started: the CLI's own rejected
		// result, which names a bad option as its flag (--memory).
		// Every other Result is the library's, as it is.
		res = rejectedResult(err)
	}
	if werr := writeFiles(s.stderr, inv.outputDir, inv.force, res); werr != nil {
		// The result is printed; the files it returned were not delivered.
		_ = s.report(ctx, inv.out, res, err)
		return werr
	}
	return s.report(ctx, inv.out, res, err)
}
