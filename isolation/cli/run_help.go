package cli

import (
	"fmt"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// runDescription is run's --help: what a run does, then a judge's
// request, then its graders.
func runDescription() string {
	return runText() + judgeText() + gradersText()
}

// runText says what a run does with its source and its output.
func runText() string {
	return "Runs the source in a fresh container under the fixed policy, once the container's runner has\n" +
		"proven the policy from inside, and prints one JSON verdict.\n\n" +
		"Every run runs its source. Without -- CMD it goes to the image's interpreter (its\n" +
		"io.synapse-isolation.exec label), else to Starlark. With -- CMD ARGS... the source is the file\n" +
		"/tmp/work/main, its path in place of the command's first argument that is exactly \"-\"\n" +
		"(python3 - becomes python3 /tmp/work/main), else after its last (python3 -I becomes\n" +
		"python3 -I /tmp/work/main). A command that runs code of its own instead (python3 -c or -m,\n" +
		"node -e, ruby or perl -e, php -r, sh -c) is refused.\n\n" +
		"output and stderr are text: bytes that are not UTF-8 become U+FFFD, one a run, counted in\n" +
		"output_replaced_bytes and stderr_replaced_bytes (--format text notes them on stderr).\n\n"
}

// judgeText says how a judge's request runs its tests.
func judgeText() string {
	return "With --test or --tests the run is a judge's: the program runs once per test, each a fresh process in\n" +
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
		"command_not_found, saying so).\n\n"
}

// gradersText says how --checker and --interactor grade the tests, and
// ends with the exit statuses.
func gradersText() string {
	return "--checker FILE grades the tests instead, as contest judges do: a trusted checker program in the\n" +
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
		"Exit status:\n" + exitStatusText()
}
