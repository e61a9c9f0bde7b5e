// Package protocol defines wire protocol v2 between the host supervisor and
// the in-container runner: the frames, their bounds and the one strict
// decoding rule both sides share. It is written for whoever builds a runner
// image: a runner that speaks these frames, in this order, within these
// bounds, can take the reference runner's place.
//
// The runner is the image's ENTRYPOINT. Its command line, after the image
// in the docker argv, is Args: its own deadline (--timeout, counted from
// the request's arrival, so the work is bounded even if the host dies), an
// optional --cpu-time limit and --idle wait, and its mode: Starlark (the
// default), --exec CMD ARGS... (the source goes to an interpreter's stdin,
// its stdout and stderr are captured) or --selfcheck (a hello and nothing
// more, for doctor). It writes nothing to stderr, so whatever appears on
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
//     so before any program exists in the container: {"v":3,"selfcheck":{...}},
//     at most limits.MaxHelloBytes. Selfcheck is what the container shows
//     from inside: identity, capabilities, NoNewPrivs and seccomp mode, the
//     errno of each syscall the policy's filter refuses (SyscallProbes; the
//     filter answers limits.FilterErrno), what a child got opening the
//     runner's own /proc files (ProcProbes), rlimits, the root and /tmp
//     mounts, interfaces, /dev/shm, the Docker socket, the environment's
//     keys and the cgroup's memory, swap, pids and CPU limits. A value the
//     runner could not read is -1 or empty, with the reason in Problems.
//     The host judges it against its plan, and on any mismatch, a malformed or late hello, or anything written after it
//     before the request, it closes stdin without sending the source.
//  2. The request, host to runner, only once the hello passed:
//     {"source":"..."}, exactly that one field, at most
//     limits.MaxRequestBytes encoded, valid UTF-8 (and, in Starlark mode,
//     no NUL byte). The runner answers at the newline, without waiting for
//     EOF. There is no field for callables, objects or context, so none can
//     be deserialized. DecodeRequest is the runner's decoder of it, by the
//     rules the host applies to every source however it arrives. The host
//     leaves <, > and & unescaped (a byte each against the bound); a
//     runner must take either spelling, as JSON allows both.
//  3. The response, runner to host, at most limits.MaxResponseBytes:
//     Response, with "v", "ok" (true exactly when "error" is absent), the
//     last expression's "result" with "result_type" and "result_repr",
//     the captured "output" (at most limits.MaxOutputBytes, with
//     "output_truncated" and the total "output_bytes"), "error" (an Error
//     whose type is one of the Err constants), "exit" (exec mode: the
//     command's code and signal), the runner's own times "elapsed_us" and
//     "handshake_us", and "usage" (CPU time and memory peak, read from the
//     container's cgroup). The host refuses inconsistent fields as well.
//
// # Versioning
//
// Version is carried in "v" of the hello and of every response; the host
// accepts exactly its own. It reads "v" leniently, so a runner of
// another version is named in the refusal even when the rest of its frame
// does not decode. A runner of protocol v1 sends no hello: it is refused
// when the wait for the hello ends. A change to any frame's fields is a
// new version.
package protocol
