package cli

import (
	"context"
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

func runCommand(s *session) *cli.Command {
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
			"node -e, ruby or perl -e, php -r, sh -c) is refused.\n\n" +
			"output and stderr are text: bytes that are not UTF-8 become U+FFFD, one a run, counted in\n" +
			"output_replaced_bytes and stderr_replaced_bytes (--format text notes them on stderr).\n\n" +
			"With --test or --tests the run is a judge's: the program runs once per test, each a fresh process in\n" +
			"the one container with the test's stdin, its own wall-clock limit and --cpu-time; its stdout is\n" +
			"compared with the test's expected output line by line, each line's trailing spaces, tabs and CRs\n" +
			"and the trailing empty lines ignored (--compare exact: byte for byte; --compare float:1e-6:1e-9:\n" +
			"token by token, each number within 1e-6 or within 1e-9 times the expected one, as checkers of\n" +
			"real-valued answers do, each as the float64 it rounds to; two integers are compared exactly).\n" +
			"\"tests\" has each test's verdict, match, first differing line, usage and output; the run's\n" +
			"verdict is its worst test's.\n" +
			fmt.Sprintf("The tests' data is at most %s in all. An image that declares a language (its\n", limits.Bytes(limits.MaxTestData)) +
			"io.synapse-isolation.language label: C, C++, Java, whose class is Main, Go, TypeScript, Rust)\n" +
			fmt.Sprintf("compiles the source once, at most %s of wall-clock and %s of CPU time within --timeout,\n",
				limits.CompileTimeout, limits.CompileCPUTime) +
			fmt.Sprintf("keeping %d KiB of what the compiler wrote (\"compile\"); a compiled program runs from a sealed\n",
				limits.MaxCompileOutput>>10) +
			"memfd, /tmp staying noexec (a host whose vm.memfd_noexec is 2 forbids that: the run is then\n" +
			"command_not_found, saying so).\n\n" +
			"--checker FILE grades the tests instead, as contest judges do: a trusted checker program in the\n" +
			"language of --checker-image's image, compiled once in a container of its own after the\n" +
			"program's is gone, run on each test that exited 0 as CHECKER INPUT OUTPUT ANSWER (testlib's\n" +
			fmt.Sprintf("order), the program's whole stdout up to %s (more is wrong_answer, never shown to it).\n",
				limits.Bytes(limits.MaxCheckedOutput)) +
			"Its exit grades the test: 0 ok, 1 wrong_answer, 2 presentation_error, 7 points (the first word\n" +
			"of its stdout, in \"points\"), anything else judge_failure, never the program's. Each test it\n" +
			fmt.Sprintf("has %s of wall-clock and CPU time and %s of memory; \"checker\" has its message (the\n",
				limits.CheckerTimeout, limits.Bytes(limits.CheckerMemory)) +
			fmt.Sprintf("first %d bytes of its stderr), exit and usage.\n\n", limits.MaxCheckerMessage) +
			"--interactor FILE grades interactive problems: a trusted interactor in the language of\n" +
			"--interactor-image's image, compiled once in a container of its own, runs at the same time as\n" +
			"the program, once per test as INTERACTOR INPUT ANSWER (the test's .in and .out: the program sees\n" +
			"neither); the host relays its stdout to the program's stdin and the program's stdout to its\n" +
			"stdin. Each test starts on both sides at once (the interactor's compile step counts in --timeout).\n" +
			"When the program ends, the interactor's stdin ends; when the interactor ends, the program\n" +
			"is stopped (\"stopped\"). Who ended first decides (\"ended_first\"): an interactor that ended\n" +
			"first with any exit but 0 grades the test as a checker's does, whatever the program did after (a\n" +
			"crash at the end of its input, a time limit); the program's own failure (timeout, oom,\n" +
			"program_error) stands when it came first, or after the interactor accepted. The program's stdout\n" +
			fmt.Sprintf("reaches the interactor up to %s a test; past it the program is stopped and the test is\n",
				limits.Bytes(limits.MaxInteractedOutput)) +
			"wrong_answer. Each test the interactor has --timeout and\n" +
			fmt.Sprintf("%s of wall-clock time, %s of CPU time and %s of memory; \"interactor\" has its\n",
				limits.CheckerTimeout, limits.CheckerTimeout, limits.Bytes(limits.CheckerMemory)) +
			"message, exit and usage, and what it wrote (head and tail); the test's output is the program's.\n\n" +
			"Exit status:\n" + exitStatusText(),
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
