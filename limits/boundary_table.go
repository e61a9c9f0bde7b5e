package limits

import (
	"fmt"
	"strconv"
	"strings"
)

// both is a row's hello when runc and gVisor show the boundary alike.
func both(p ...Proof) map[Runtime][]Proof { return map[Runtime][]Proof{Runc: p, Runsc: p} }

// apart is a row's hello when gVisor shows it otherwise than runc, or
// hides it and another proof stands in.
func apart(runc, runsc []Proof) map[Runtime][]Proof {
	return map[Runtime][]Proof{Runc: runc, Runsc: runsc}
}

func proofs(p ...Proof) []Proof { return p }

// Boundaries is the boundary table: every boundary of the policy once, in
// the order Audit reports them. Render, Audit, the hello's judge, the test
// doubles and the README's table all read it.
var Boundaries = []Boundary{
	{ID: "ephemeral", Name: "ephemeral (--rm)", Value: "the container is removed when it ends",
		Argv: []string{"--rm"}, Claims: []string{"rm"}, Audit: "--rm is on"},
	{ID: "user", Name: "user " + User, Value: User + " (nobody), numeric",
		Argv: []string{"--user", User}, Claims: []string{"user"}, Audit: "the last --user is " + User,
		Hello: both(Proof{Check: "uid/gid", Proves: "the program runs as " + User + " with no other group", Judge: "ids",
			Shows: "uid, gid and every group " + strconv.Itoa(UID)})},
	{ID: "capabilities", Name: "capabilities dropped", Value: "none",
		Argv: []string{"--cap-drop=ALL"}, Claims: []string{"cap-drop", "cap-add"}, Audit: "a --cap-drop names ALL; no --cap-add",
		Hello: both(Proof{Check: "capabilities", Proves: "no capability is effective", Judge: "cap-eff",
			Shows: "CapEff " + CapEffNone})},
	{ID: "no-new-privileges", Name: "no new privileges", Value: "on",
		Argv: []string{"--security-opt", "no-new-privileges"}, Claims: []string{"security-opt"},
		Audit: "the last no-new-privileges security option is on",
		Hello: apart(
			proofs(Proof{Check: "no new privileges", Proves: "setuid binaries cannot raise privileges", Judge: "status-no-new-privs",
				Shows: fmt.Sprintf("NoNewPrivs %d in /proc/self/status", NoNewPrivsOn)}),
			proofs(Proof{Check: "no new privileges", Proves: "setuid binaries cannot raise privileges", Judge: "prctl-no-new-privs",
				Shows: fmt.Sprintf("prctl(PR_GET_NO_NEW_PRIVS) %d (gVisor prints no NoNewPrivs line)", NoNewPrivsOn)}))},
	{ID: "seccomp", Name: "seccomp allowlist", Value: "the policy's own profile",
		Argv: []string{"--security-opt", ArgSeccomp}, Claims: []string{"security-opt"},
		Audit: "exactly one seccomp= option, naming a file that is the policy's profile byte for byte",
		Hello: apart(
			proofs(Proof{Check: "seccomp", Proves: "the engine's runtime installed a seccomp filter", Judge: "status-seccomp",
				Shows: fmt.Sprintf("Seccomp %d in /proc/self/status when the runner starts", SeccompModeFilter)}, syscallFilter),
			proofs(Proof{Check: "seccomp", Judge: "runner-seccomp",
				Proves: "gVisor ignores the OCI profile, so the runner installed the policy's own filter (seccomp(2) on every thread) before any program",
				Shows:  fmt.Sprintf("no filter when the runner starts; Seccomp %d once it installed the policy's", SeccompModeFilter)}, syscallFilter))},
	{ID: "security-profiles", Name: "security profiles", Value: "the engine's apparmor profile and masked paths",
		Audit: "no apparmor, label or systempaths option, nor an unknown one"},
	{ID: "read-only-root", Name: "read-only root", Value: "read-only",
		Argv: []string{"--read-only"}, Claims: []string{"read-only"}, Audit: "--read-only is on",
		Hello: both(Proof{Check: "read-only root", Proves: "the root filesystem cannot be written", Judge: "root-read-only",
			Shows: "/ mounted read-only"})},
	{ID: "tmp", Name: "bounded /tmp", Value: "the only writable place, " + Bytes(TmpBytes).String(),
		Argv: []string{"--tmpfs", Tmpfs}, Claims: []string{"tmpfs"},
		Audit: "no --tmpfs but /tmp, with " + strings.Join(TmpFlags, ", ") + " and size= at most " + Bytes(TmpBytes).String(),
		Hello: apart(
			proofs(Proof{Check: "/tmp", Judge: "tmp-mount", Proves: tmpProves,
				Shows: fmt.Sprintf("%s; %d bytes; mode %s; a file can be created", strings.Join(TmpFlags, ", "), TmpBytes, TmpMode)}),
			proofs(Proof{Check: "/tmp", Judge: "tmp-mount-mknod", Proves: tmpProves,
				Shows: fmt.Sprintf("noexec, nosuid (gVisor prints no nodev: mknod of a device there fails EPERM); %d bytes; mode %s; a file can be created", TmpBytes, TmpMode)}))},
	{ID: "network", Name: "no network", Value: None,
		Argv: []string{"--network", None}, Claims: []string{"network"}, Audit: "every --network is none (docker attaches them all)",
		Hello: both(Proof{Check: "network", Proves: "no network interface but loopback", Judge: "interfaces",
			Shows: "interfaces " + strings.Join(Interfaces, ",")})},
	{ID: "cpus", Name: "one cpu", Value: strconv.Itoa(CPUs),
		Argv: []string{"--cpus", strconv.Itoa(CPUs)}, Claims: []string{"cpus"}, Audit: "the last --cpus is above 0 and at most " + strconv.Itoa(CPUs),
		Hello: both(Proof{Check: "cpu", Proves: "one CPU of quota", Judge: "cgroup-cpu", Shows: "cpu.max " + CPUMax})},
	{ID: "pids", Name: "pids limit", Value: strconv.Itoa(PIDs) + " tasks, threads included",
		Argv: []string{"--pids-limit", strconv.Itoa(PIDs)}, Claims: []string{"pids-limit"}, Audit: "the last --pids-limit is 1 to " + strconv.Itoa(PIDs),
		Under: map[Runtime]Flags{Runsc: {Argv: []string{"--pids-limit", strconv.Itoa(GVisorHostPIDs), "--ulimit", UlimitNProc},
			Audit: fmt.Sprintf("the last --pids-limit is 1 to %d (gVisor's own threads share it) and the last --ulimit nproc= is 1 to %s (the sandbox's tasks, as gVisor counts them)",
				GVisorHostPIDs, Pair(PIDs, PIDs))}},
		Hello: apart(
			proofs(Proof{Check: "pids", Proves: fmt.Sprintf("at most %d tasks", PIDs), Judge: "cgroup-pids",
				Shows: "pids.max " + strconv.Itoa(PIDs)}),
			proofs(Proof{Check: "pids", Proves: fmt.Sprintf("at most %d tasks in the sandbox, threads included, counted by gVisor", PIDs), Judge: "rlimit-nproc",
				Shows: "RLIMIT_NPROC " + Pair(PIDs, PIDs)},
				Proof{Check: "host pids", Proves: "the host caps the sandbox's own threads as well", Judge: "host-pids",
					Shows: fmt.Sprintf("the engine's record of the container: PidsLimit %d (gVisor's pids.max shows no limit)", GVisorHostPIDs)}))},
	{ID: "nofile", Name: "open files limit", Value: Pair(NoFile, NoFile),
		Argv: []string{"--ulimit", UlimitNoFile}, Claims: []string{"ulimit"}, Audit: "the last --ulimit nofile= is 1 to " + Pair(NoFile, NoFile),
		Hello: both(Proof{Check: "open files", Proves: fmt.Sprintf("at most %d open files", NoFile), Judge: "rlimit-nofile",
			Shows: "RLIMIT_NOFILE " + Pair(NoFile, NoFile)})},
	{ID: "core", Name: "no core dumps", Value: Pair(Core, Core),
		Argv: []string{"--ulimit", UlimitCore}, Audit: "the last --ulimit core= is " + Pair(Core, Core),
		Hello: both(Proof{Check: "core dumps", Proves: "no core dumps", Judge: "rlimit-core", Shows: "RLIMIT_CORE " + Pair(Core, Core)})},
	{ID: "memory", Name: "memory limit", Value: fmt.Sprintf("M: %s by default, %s to %s", DefaultMemory, MinMemory, MaxMemory),
		Argv: []string{"--memory", ArgMemory}, Claims: []string{"memory", "oom-kill-disable"},
		Audit: fmt.Sprintf("the last --memory is %s to %s, a whole number of bytes; no --oom-kill-disable", MinMemory, MaxMemory),
		Hello: both(Proof{Check: "memory", Proves: "the cgroup memory limit is the planned one", Judge: "cgroup-memory",
			Shows: "the cgroup's memory limit, M"})},
	{ID: "swap", Name: "no swap", Value: "memory and swap together M",
		Argv: []string{"--memory-swap", ArgMemory}, Claims: []string{"memory-swap"}, Audit: "the last --memory-swap equals --memory",
		Hello: apart(
			proofs(Proof{Check: "swap", Proves: "the program gets no swap", Judge: "cgroup-swap", Shows: "0 bytes of swap"}),
			proofs(Proof{Check: "swap", Proves: "the sandbox gets no swap", Judge: "host-swap",
				Shows: "the engine's record of the container: MemorySwap equal to Memory (gVisor shows no swap file)"}))},
	{ID: "ipc", Name: "ipc none", Value: None,
		Argv: []string{"--ipc", None}, Claims: []string{"ipc"}, Audit: "the last --ipc is none",
		Hello: both(Proof{Check: "/dev/shm", Proves: "no second writable area", Judge: "dev-shm", Shows: "/dev/shm cannot be written"})},
	{ID: "log-driver", Name: "no daemon-side log", Value: None,
		Argv: []string{"--log-driver", None}, Claims: []string{"log-driver"}, Audit: "the last --log-driver is none"},
	{ID: "pull", Name: "no pulls", Value: PullNever,
		Argv: []string{"--pull", PullNever}, Claims: []string{"pull"}, Audit: "the last --pull is never"},
	{ID: "image", Name: "immutable image id", Value: "an image ID, never a name or tag",
		Audit: "the image is " + ImageIDPrefix + " and 64 lowercase hex digits"},
	{ID: "privileged", Name: "not privileged", Value: "off", Claims: []string{"privileged"}, Audit: "no --privileged"},
	{ID: "mounts", Name: "no mounts", Value: "none", Claims: []string{"volume", "mount", "volumes-from", "use-api-socket"},
		Audit: "no --volume, --mount, --volumes-from, --use-api-socket",
		Hello: both(Proof{Check: "docker socket", Proves: "no way to the Docker daemon", Judge: "docker-socket", Shows: "no docker socket"})},
	{ID: "devices", Name: "no devices", Value: "none", Claims: []string{"device", "device-cgroup-rule", "gpus"},
		Audit: "no --device, --device-cgroup-rule, --gpus"},
	{ID: "ports", Name: "no published ports", Value: "none", Claims: []string{"publish", "publish-all"},
		Audit: "no --publish, --publish-all"},
	{ID: "namespaces", Name: "no host namespaces", Value: "private", Claims: []string{"pid", "uts", "userns", "cgroupns"},
		Audit: "no --pid, --uts, --userns or --cgroupns of the host or of another container"},
	{ID: "environment", Name: "no host environment", Value: "the engine's own: " + strings.Join(EngineEnv, ", "),
		Claims: []string{"env", "env-file"}, Audit: "no --env, --env-file",
		Hello: both(Proof{Check: "environment", Proves: "nothing of the host's environment", Judge: "env-keys",
			Shows: "keys among " + strings.Join(EngineEnv, ",")})},
	{ID: "groups", Name: "no extra groups", Value: "none", Claims: []string{"group-add"}, Audit: "no --group-add"},
	{ID: "sysctls", Name: "no sysctls", Value: "none", Claims: []string{"sysctl"}, Audit: "no --sysctl"},
	{ID: "entrypoint", Name: "runner entrypoint", Value: "the image's runner as PID 1", Claims: []string{"entrypoint", "init"},
		Audit: "no --entrypoint, --init"},
	{ID: "runtime", Name: "runtime", Value: "runc (the engine's default) or gVisor's runsc", Claims: []string{"runtime"},
		Audit: "no --runtime but runc, runsc (or runsc-NAME), or one the auditor allows",
		Hello: apart(
			proofs(Proof{Check: "kernel", Proves: "the runner runs on the host's kernel, as runc runs it", Judge: "kernel-linux",
				Shows: "a uname that is not gVisor's"}),
			proofs(Proof{Check: "kernel", Proves: "the runner runs on gVisor's kernel, not the host's", Judge: "kernel-gvisor",
				Shows: "gVisor's uname version"},
				Proof{Check: "host runtime", Proves: "the engine ran the container under the runtime asked for", Judge: "host-runtime",
					Shows: "the engine's record of the container: its --runtime"}))},
	{ID: "threads", Name: "numeric threads", Value: fmt.Sprintf("%d per pool in exec mode: the runner sets %s to %d for the interpreter",
		Threads, strings.Join(ThreadVars, ", "), Threads),
		Audit: fmt.Sprintf("with --exec, the runner's --threads is %d (the CPUs); none without", Threads)},
	{ID: "cpu-time", Name: "CPU-time and test limits", Value: "none, or " + MinCPUTime.String() + " to the timeout; a test's, " +
		MinTestTimeout.String() + " to it",
		Audit: "the runner's --cpu-time, if any, is a duration from " + MinCPUTime.String() + " to its --timeout; --test-timeout from " +
			MinTestTimeout.String()},
	{ID: "runner-proc", Name: "runner /proc closed", Value: "the runner is non-dumpable",
		Hello: both(Proof{Check: "runner /proc", Proves: "the program cannot open the runner's memory, descriptors, environment or OOM score",
			Judge: "proc-probes", Shows: "EACCES or EPERM opening /proc/1/mem, fd/0, environ, oom_score_adj"})},
	{ID: "selfcheck", Name: "a whole account", Value: "every value read",
		Hello: both(Proof{Check: "selfcheck problems", Proves: "every value above could be read", Judge: "problems", Shows: "no problems"})},
	{ID: "other-flags", Name: "other flags", Value: "none but harmless ones",
		Audit: "every other flag is one docker knows and cannot weaken a boundary (it names, labels, schedules or throttles)"},
}

// syscallFilter is the hello's proof that the policy's own filter is the
// one in force, on every runtime.
var syscallFilter = Proof{Check: "syscall filter", Proves: "the policy's seccomp allowlist is the filter in force", Judge: "syscall-probes",
	Shows: fmt.Sprintf("errno %d from each of %d refused syscalls", FilterErrno, len(SeccompProbes))}

var tmpProves = fmt.Sprintf("/tmp is a %d MiB tmpfs, writable by the sandbox user (%s), without exec, setuid or devices", TmpBytes>>20, TmpMode)
