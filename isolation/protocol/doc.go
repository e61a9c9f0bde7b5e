// Package protocol defines wire protocol v8 between the host supervisor and
// the in-container runner: the frames, their bounds, their strict encoding
// and decoding (by the one rule of package strict) and the request model,
// Request with its rules, which the library and the command line hold as
// the request itself. It is written for whoever builds a runner image: a
// runner that speaks these frames, in this order, within these bounds, can
// take the reference runner's place.
//
// The runner is the image's ENTRYPOINT. Its command line, after the image
// in the docker argv, is runargs.Args (package runargs): its own deadline (--timeout, counted from
// the request's arrival, so the work is bounded even if the host dies), an
// optional --cpu-time limit and --idle wait, --threads N (in exec mode the
// size of every numeric library's thread pool, limits.ThreadVars, set for
// the interpreter), --preload MODULES (a warm Python's imports, below),
// --test-timeout D (each test's wall-clock limit), a declared language's
// --source NAME (the source's file name) and --compile JSON (its compile
// command, a JSON array), and its mode: Starlark (the
// default), --exec CMD ARGS... (an interpreter runs the source from a
// file its command line names, runargs.Args.Exec; its stdin is the request's, its
// stdout and stderr are captured apart) or --selfcheck (a hello and
// nothing more, for doctor). It writes nothing to stderr, so whatever appears on
// the stderr of docker run is Docker's own, and it exits 0 whenever it
// wrote a response: a program error is a response, not an exit status.
//
// # Frames
//
// Three frames, one JSON object on one line each, in this order; every
// frame from the runner is hostile input to the host, bounded and decoded
// strictly (unknown fields, trailing data and invalid UTF-8 are refused):
//
//  1. The hello, runner to host, written before the runner reads anything,
//     so before any program exists in the container: {"v":8,"selfcheck":{...}},
//     at most limits.MaxHelloBytes (package hello). Its Selfcheck is what the container shows
//     from inside: identity, capabilities, NoNewPrivs and seccomp mode, the
//     errno of each syscall the policy's filter refuses (SyscallProbes; the
//     filter answers limits.FilterErrno), what a child got opening the
//     runner's own /proc files (ProcProbes), rlimits, the root and /tmp
//     mounts, interfaces, /dev/shm, the Docker socket, the environment's
//     keys and the cgroup's memory, swap, pids and CPU limits. A value the
//     runner could not read is -1 or empty, with the reason in Problems.
//     DecodeHello is the host's decoder of it. The host judges it against
//     its plan, and on any mismatch, a malformed or late hello, or anything
//     written after it before the request, it closes stdin without sending
//     the source. With
//     --preload, a hello that passed is answered with one newline, on
//     which the runner starts its Python with a bootstrap that imports the
//     modules and waits for the program (its path and stdin come over a
//     socket once the request arrives); the program runs as in a cold
//     interpreter, with a fresh __main__.
//  2. The request, host to runner, only once the hello passed:
//     {"source":"...","stdin":"...","files":{"NAME":"...",...},
//     "binary":{"NAME":"<base64>",...},"collect":["PATTERN",...]} (Request;
//     all but source may be left out; binary and collect in exec mode
//     only), no other field, each key once, at
//     most limits.MaxRequestBytes encoded all together, valid UTF-8 (and,
//     in Starlark mode, no NUL byte in the source or a file, which is a
//     module there), file names plain (no /, no .., no control character,
//     no leading -, not "main"), at most 32 files. Nothing of it, files
//     included, enters the container before the hello passed. The runner
//     answers at the newline, without waiting for EOF. There is no field
//     for callables, objects or context, so none can be deserialized.
//     DecodeRequest is the runner's decoder of it, by the rules the host
//     applies to every request however it arrives. The host leaves <, >
//     and & unescaped (a byte each against the bound); a runner must take
//     either spelling, as JSON allows both. In exec mode the runner makes
//     the program's working directory /tmp/work, fresh, with the files
//     and the source (as "main") in it, and gives the interpreter stdin
//     on its standard input (end-of-file at once when empty); in Starlark
//     mode stdin is the predeclared string stdin and a file is a module
//     for load().
//     A judge's request adds "tests" ([{"name","stdin_bytes",
//     "expect_bytes"}], expect_bytes absent for a test without expected
//     output; at most limits.MaxTests, exec mode only, no request stdin)
//     and "compare" ("lines" or "exact"); right after its newline come the
//     tests' bytes, each test's stdin then its expected output, in order,
//     exactly as many as the sizes say (at most limits.MaxTestData in all,
//     so data past the request's own bound travels outside it).
//     A judge's request graded by a checker or an interactor
//     (Request.Grader, never sent) goes as two frames, each with its
//     "role" (Role, derived as the frame is made: ProgramFrame,
//     GraderFrame): the program's ("checked", "interactive") and the
//     grader's own run's ("check", "interact"); a frame without it
//     compares.
//     A request of a program that runs once may begin with the host's
//     stop, "stop_ms" (WithStop; DecodeFrame reads it): the runner stops
//     the program that many milliseconds after it read the request, if
//     that comes before its own --timeout, and answers "timeout". The
//     stop is outside the request's bound (MaxFrameBytes).
//  3. The response, runner to host, at most limits.MaxResponseBytes:
//     Response, with "v", "ok" (true exactly when "error" is absent), the
//     last expression's "result" with "result_type" and "result_repr",
//     the program's stdout as "output" and its stderr as "stderr" (each
//     with "_truncated", its total "_bytes" and "_replaced_bytes", the
//     bytes that were not UTF-8, each run one U+FFFD; the two within
//     limits.MaxOutputBytes together, split by capture.Shares, a stream over
//     its share kept as its head and tail around one line
//     "[... N bytes dropped ...]"), "error" (an Error
//     whose type is one of the Err constants), "exit" (exec mode: the
//     command's code and signal), the runner's own times "elapsed_us" and
//     "handshake_us", "usage" (CPU time and memory peak, read from the
//     container's cgroup), and "files": for each name in the working
//     directory that a collect pattern matches, once every process of the
//     program is gone, {"bytes","sha256","base64"} or {"error"} (File: at
//     most 32 by name; opened once without following links and without
//     blocking, judged by fstat; whole or not at all, within the response's
//     bound). DecodeResponse is the host's decoder of it, and it refuses
//     inconsistent fields as well (CheckFiles: a file's bytes must be its
//     size and its SHA-256, its name a plain one). With
//     --compile, "compile" is the compile step (a Step, its output within
//     limits.MaxCompileOutput); a failed one makes "error" of type
//     "compile" and nothing runs. With tests, "ok" is true once they were
//     judged and "tests" holds one TestResult per test, in order: its
//     name, verdict (Verdicts' Test), match, first differing line, and its
//     Step; the compile step's and the tests' output together within
//     limits.MaxOutputBytes.
//
// # Versioning
//
// Version is carried in "v" of the hello and of every response; the host
// accepts exactly its own. It reads "v" leniently, so a runner of
// another version is named in the refusal even when the rest of its frame
// does not decode. A runner of protocol v1 sends no hello: it is refused
// when the wait for the hello ends. A change to any frame's fields is a
// new version: v3 added stdin, files and stderr, and the source's file in
// exec mode; v6 a judge's request (Version).
package protocol
