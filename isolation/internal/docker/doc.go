// Package docker is the one owner of the docker CLI on the host: a Client
// builds every docker command line the supervisor runs (the run's own,
// the queries, the removals and the reaper's), and this package is the only
// one of the library that starts a process. It also reads what the
// engine and the user's configuration say about a run before it starts:
// the image's declared interpreter (its labels), the engine's record of a
// container, proxies in the CLI's config, and the seccomp profile file the
// CLI sends to the engine.
//
// Its errors are plain: the supervisor (package isolation) decides which
// verdict each one stands for. Only a label that is not a valid
// declaration has a type of its own (LabelError), because it is the
// image's fault, not the engine's.
package docker
