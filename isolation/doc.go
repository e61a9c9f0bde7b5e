// Package isolation is the host-side library: it runs one untrusted
// request in a fresh, locked-down container through the docker CLI, bounds
// everything it reads back, removes the container daemon-side, and returns
// one verdict. It is the library behind the synapse-isolation command; a
// caller needs no other package of this module but limits, for the bounds,
// and isolation/protocol, for the verdicts, the graders and a result's
// parts (its error, exit and files).
//
// # Run
//
// Run starts one container per request under the fixed policy (see package
// limits) and the Options' memory, timeout and CPU-time limit, and returns
// once the container is confirmed gone:
//
//	res, err := isolation.Run(ctx, isolation.Request{Source: "1+2"}, isolation.Options{
//		Image:  imageID, // an immutable sha256: ID; never pulled
//		Limits: limits.Config{Memory: 256 << 20, Timeout: 5 * time.Second},
//	})
//
// Before the program exists in the container, the runner's hello (its own
// view of the sandbox, see package protocol) is judged against the plan;
// on any mismatch the source is never sent and the verdict is
// SandboxFailure. Result.Sandboxed is true exactly when the hello passed.
// The Result holds the program's value and output (at most 64 KiB,
// truncated and counted), its error, the phases' Timings and the Usage the
// runner read from the container's cgroup. Every run draws its own run id,
// carried by a label; cleanup finds the container by it, never by name.
// Under the synapse-isolation command, a per-run reaper also removes it if
// the process is killed: the command's own executable started again
// (/proc/self/exe) as "synapse-isolation-reaper", which the command's
// entry point runs before anything else (Linux hosts). A program that
// embeds this package has no such entry, so its runs start no reaper:
// the runner still ends its container at its own deadline, and GC removes
// what a killed supervisor left. Doctor checks an engine and an image
// against the policy; Options.Argv is the exact argv Run executes.
//
// A judge's request (Request.Tests, each a Test with its Stdin and Expect)
// runs the program once per test in the one container, each a fresh process
// under its own wall-clock limit (limits.Config.TestTimeout, else a fair
// share of the time left) and the CPU-time limit, both times the time
// factor the image declares (its io.synapse-isolation.time-factor label:
// Java, JavaScript and TypeScript 2, Python, Ruby and PHP 3);
// Request.Compare compares its stdout line by line, exactly, or as
// numbers within an epsilon
// ("float:ABS[:REL]"). The Result's Tests say each test's verdict, match,
// limits and usage, and its Verdict is the most serious test's, with a nil
// error. An image that declares a language (its
// io.synapse-isolation.language label: the C, C++, Java, Go, TypeScript
// and Rust images) compiles the source once first: Result.Compile, and
// CompileError when it fails.
// Its binary runs from a sealed memfd; /tmp stays noexec.
//
// Request.Grader grades the tests in place of Compare: a *protocol.Checker
// or a *protocol.Interactor, the one field that says the request's mode
// (nil: Compare).
// A Checker is a trusted checker program, testlib's "checker INPUT OUTPUT
// ANSWER", in the language of the Checker's own image. The program runs
// first, and each test that exited 0 within its limits sends back its
// whole stdout (up to limits.MaxCheckedOutput; more is a WrongAnswer no
// checker is shown),
// kept in host files; once the program's container is gone, the checker
// is compiled once in a container of its own and run on each such test,
// under limits.CheckerTimeout and CheckerMemory. Its exit grades the
// test: 0 OK, 1 WrongAnswer, 2 PresentationError, 7 Points
// (TestResult.Points); any other end is a JudgeFailure, never the
// program's. Result.Checker is the checker's run, TestResult.Checker how
// it graded each test, its message the head of its stderr.
//
// An Interactor grades interactive problems: a trusted interactor,
// run as "interactor INPUT ANSWER" (the test's stdin and expected output,
// which the program never sees) in a container of its own, on its own
// image, at the same time as the program in its: the host relays each
// one's stdout to the other's stdin, test by test (the live frames of
// package protocol), both sides starting each test together; the
// interactor's compile step counts in the program's timeout. When the
// program ends, the interactor's stdin ends; when the interactor ends,
// the program is stopped (TestResult.Stopped). The side that ended
// first, in the order the host relayed their ends, decides
// (InteractorRun.EndedFirst): an interactor that ended first with any
// exit but 0 grades the test as a checker's does, whatever the program
// did after; the program's own failure (a limit, a crash, a nonzero
// exit) stands when it came first or after the interactor accepted. The
// program's stdout is given to the interactor up to
// limits.MaxInteractedOutput a test; past it the program is stopped and
// the test is a WrongAnswer. Each test the interactor has the
// program's timeout and limits.CheckerTimeout of wall-clock time,
// CheckerTimeout of CPU time and CheckerMemory. Result.Interactor is its
// run, TestResult.Interactor how it graded each test and what it wrote,
// head and tail; the test's output is the program's.
//
// Limits are validated before any process starts. Library errors name
// fields (memory: ...), where the command line names flags (--memory: ...);
// exit statuses are the command's, not the library's.
//
// # The Pool
//
// A Pool (what the batch command uses) still gives every request a fresh
// container used once, but starts up to PoolOptions.Parallel containers
// ahead of their requests, each with its hello judged and passed and its
// runner blocked reading; the runner's own deadline starts when the request
// arrives, and a ready container nobody uses ends on its own after
// PoolOptions.Idle. An image whose Python interpreter it declares may also
// declare modules to preload (its io.synapse-isolation.preload label, a
// JSON array of module names): once a container's hello passed, its
// runner imports them in a fresh interpreter, and the request's program
// runs in it, its usage counted from the request. Its life cycle:
//
//   - NewPool checks every engine (it answers, it has the image) and starts
//     filling; its context ends every container of the pool (a signal, say).
//     An engine whose container fails its hello is dropped (PoolOptions.OnDrop
//     is told); with none left, every request gets that failure and no
//     program runs.
//   - Pool.Run gives a request the next ready container. It honours the
//     request's context until the response: when the context ends, the
//     container is killed and removed and the verdict is Interrupted.
//   - Pool.Drain says no more requests will come beyond those running or
//     waiting, so no container is started for nobody.
//   - Pool.Close stops intake (a request that comes or still waits is
//     Interrupted), waits for the requests that have a container, then ends
//     every ready container and returns each removal it could not confirm.
//     It must be called however the pool ends.
//
// # Verdicts
//
// Every Result names one Verdict, whose constants are protocol's, beside
// the one table of verdicts: OK and ProgramError (the program ran and
// raised) are the program's outcomes; Rejected (bad input, before any
// process), SandboxFailure (the container did not enforce the policy, or
// its runner's frames were missing, malformed, oversized or lying),
// Timeout (the host's deadline), CPUTimeout (the --cpu-time limit),
// EngineFailure (docker itself failed, a limit it dropped, a cleanup it
// could not confirm), OOM (the memory limit, with its evidence named),
// Interrupted (the context ended) and CommandNotFound (exec mode: the
// interpreter is not in the image) are not. Each verdict's facts (the
// CLI's exit status, its severity, whose it is, its errors' prefix) are
// its row of the one table, protocol.Verdicts.
//
// # Error
//
// Run's error is nil exactly for OK and ProgramError, and for a judged
// request (Result.Tests set, or CompileError), whose verdict is its
// tests'. Otherwise it is an
// *Error carrying the same Verdict as the Result and its cause (errors.As
// finds it; Unwrap gives the cause). Outcomes are decided from the host's
// own deadline first, then docker's exit status, then evidence, never by
// matching error strings, so a caller branches on Verdict alone.
package isolation
