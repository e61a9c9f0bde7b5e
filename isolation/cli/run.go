package cli

import (
	"fmt"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/limits"
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

func runCommand() *cli.Command {
	var o runOptions
	return &cli.Command{
		Name:      "run",
		Usage:     "run untrusted code in a fresh locked-down container and print one verdict",
		ArgsUsage: "[-- CMD ARGS...]  (an interpreter in the image; its first - is the source's path)",
		Description: "Runs the source in a fresh container under the fixed policy, once the container's runner has\n" +
			"proven the policy from inside, and prints one JSON verdict.\n\n" +
			"Every run runs its source. Without -- CMD it goes to the image's interpreter (its\n" +
			"io.synapse-isolation.exec label), else to Starlark. With -- CMD ARGS... the source is the file\n" +
			"/tmp/work/main, its path in place of the command's first argument that is exactly \"-\"\n" +
			"(python3 - becomes python3 /tmp/work/main), else after its last (python3 -I becomes\n" +
			"python3 -I /tmp/work/main). A command that runs code of its own instead (python3 -c or -m,\n" +
			"node -e, ruby or perl -e, sh -c) is refused.\n\n" +
			"output and stderr are text: bytes that are not UTF-8 become U+FFFD, one a run, counted in\n" +
			"output_replaced_bytes and stderr_replaced_bytes (--format text notes them on stderr).\n\n" +
			"With --test or --tests the run is a judge's: the program runs once per test, each a fresh process in\n" +
			"the one container with the test's stdin, its own wall-clock limit and --cpu-time; its stdout is\n" +
			"compared with the test's expected output line by line, each line's trailing spaces, tabs and CRs\n" +
			"and the trailing empty lines ignored (--compare exact: byte for byte). \"tests\" has each test's\n" +
			"verdict, match, first differing line, usage and output; the run's verdict is its worst test's.\n" +
			fmt.Sprintf("The tests' data is at most %s in all. An image that declares a language (its\n", limits.Bytes(limits.MaxTestData)) +
			"io.synapse-isolation.language label: C, C++, Java, whose class is Main) compiles the source\n" +
			fmt.Sprintf("once, at most %s of wall-clock and %s of CPU time within --timeout, keeping %d KiB of what\n",
				limits.CompileTimeout, limits.CompileCPUTime, limits.MaxCompileOutput>>10) +
			"the compiler wrote (\"compile\"); a compiled program runs from a sealed memfd, /tmp staying\n" +
			"noexec (a host whose vm.memfd_noexec is 2 forbids that: the run is then command_not_found,\n" +
			"saying so).\n\n" +
			"Exit status:\n" + exitStatusText(),
		Flags: slices.Concat(o.sandbox.runFlags(), o.source.flags(), o.input.flags(), o.files.flags(), o.tests.flags(),
			[]cli.Flag{formatFlag(&o.format)}),
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
	if err := o.files.check(c); err != nil {
		return reportRejected(c, format, err)
	}
	src, err := o.source.read(c)
	if err != nil {
		return reportRejected(c, format, err)
	}
	stdin, files, binary, err := o.input.read(c)
	if err != nil {
		return reportRejected(c, format, err)
	}
	tests, compare, err := o.tests.read(c)
	if err != nil {
		return reportRejected(c, format, err)
	}
	req := isolation.Request{Source: src, Stdin: stdin, Files: files, Binary: binary, Collect: o.files.patterns(), Tests: tests, Compare: compare}
	res, err := isolation.Run(c.Context, req, opts)
	if isRejected(err) {
		// Refused before anything started: the CLI's own rejected
		// result, which names a bad option as its flag (--memory).
		// Every other Result is the library's, as it is.
		res = rejectedResult(err)
	}
	if werr := writeFiles(c.App.ErrWriter, o.files.outputDir, o.files.force, res); werr != nil {
		// The result is printed; the files it returned were not delivered.
		_ = report(c, format, res, err)
		return werr
	}
	return report(c, format, res, err)
}
