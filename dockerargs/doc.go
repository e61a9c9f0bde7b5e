// Package dockerargs renders the exact `docker run` argv of the isolation
// policy and audits any captured `docker run` argv against it. It is pure:
// no I/O, no clock, no randomness. Everything that varies per run (the name,
// the labels, the engine context, the seccomp file's path) is a field of
// Spec, so the same Spec always renders the same argv, which the golden
// files in testdata hold one argument per line.
//
// # The argv
//
// Check validates a Spec with the policy's own rules, and Render takes only
// what Check returns. The order is fixed:
//
//  1. the client (docker, or Spec.CLI), then --context NAME when a remote
//     engine is named, then run;
//  2. the policy's flags, always and in this order: --rm, --user
//     65534:65534, --cap-drop=ALL, --security-opt no-new-privileges,
//     --read-only, --tmpfs /tmp:..., --network none, --cpus 1,
//     --pids-limit 64, the nofile and core ulimits, --memory and an equal
//     --memory-swap, --ipc none, --log-driver none, --pull never,
//     --interactive and --security-opt seccomp=FILE;
//  3. the optional ones: --runtime NAME when asked;
//  4. the name and the labels: the run id, the host deadline in unix
//     seconds, and the owner when set (cleanup, gc and the OOM query find
//     containers by these, never by name);
//  5. the immutable image ID, then the runner's arguments.
//
// Text writes an argv as JSON, one argument per line, or one POSIX shell
// line, and ReadText reads any of them back; a shell line that a shell
// would expand (parameters, globs, redirections) is refused, never guessed.
//
// # The audit
//
// Audit reads any `docker run` argv the way docker does (--flag=value and
// --flag value, short and combined short flags, the last value of a
// single-valued flag, global options before run, `docker container run`)
// and reports every boundary of the policy as Enforced, Missing or
// Violated, one Finding each, in a fixed order; Report.Compliant says
// whether all are enforced. A flag it does not know is a violation, so a
// new docker flag is reported rather than ignored; a --runtime is a finding
// unless AuditOptions.AllowRuntimes names it; the seccomp profile must be
// the policy's own, byte for byte, and since Audit does no I/O the caller
// reads the files SeccompPaths lists into AuditOptions.Seccomp. An argv that
// is not a docker run command at all is an *UnreadableError. The property
// the tests hold: Audit(Render(c)) is compliant for every valid Spec.
package dockerargs
