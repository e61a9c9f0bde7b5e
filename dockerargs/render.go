package dockerargs

import (
	"fmt"
	"strconv"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// Flag spellings of Render. The audit reads flags by docker's own table
// (flags.go); the property test Audit(Render(spec)) keeps the two in step.
const (
	flagRm          = "--rm"
	flagUser        = "--user"
	flagCapDrop     = "--cap-drop"
	flagSecurityOpt = "--security-opt"
	flagReadOnly    = "--read-only"
	flagTmpfs       = "--tmpfs"
	flagNetwork     = "--network"
	flagCPUs        = "--cpus"
	flagPidsLimit   = "--pids-limit"
	flagUlimit      = "--ulimit"
	flagMemory      = "--memory"
	flagMemorySwap  = "--memory-swap"
	flagIPC         = "--ipc"
	flagLogDriver   = "--log-driver"
	flagPull        = "--pull"
	flagInteractive = "--interactive"
	flagRuntime     = "--runtime"
	flagName        = "--name"
	flagLabel       = "--label"
	flagContext     = "--context"
)

// Policy values rendered into the argv.
var (
	// user is the numeric user and group; numeric so no passwd file in the image can remap it.
	user = fmt.Sprintf("%d:%d", limits.UID, limits.GID)
	// tmpfsOptions mounts /tmp as the only writable place: bounded, no exec, no setuid, no devices.
	tmpfsOptions = "rw,noexec,nosuid,nodev,size=" + limits.Bytes(limits.TmpBytes).String() + ",mode=1777"
	// tmpfs is the --tmpfs value.
	tmpfs          = "/tmp:" + tmpfsOptions
	ulimitNoFile   = fmt.Sprintf("nofile=%d:%d", limits.NoFile, limits.NoFile)
	ulimitCore     = fmt.Sprintf("core=%d:%d", limits.Core, limits.Core)
	noNewPrivilege = "no-new-privileges"
)

// Label keys the tool puts on its containers; gc finds leftovers by them.
const (
	LabelRunID    = "io.synapse-isolation.run-id"
	LabelDeadline = "io.synapse-isolation.deadline"
	// LabelOwner names the supervisor process that runs the container
	// (boot id, pid, start time), so gc on the same host can tell when it
	// is gone.
	LabelOwner = "io.synapse-isolation.owner"
)

// DefaultCLI is the client binary used when Spec.CLI is empty.
const DefaultCLI = "docker"

// Spec is everything that varies between two renders of the policy argv.
// Check validates it; Render takes only what Check returns.
type Spec struct {
	// CLI is the client binary (docker, or a compatible one such as podman); empty means docker.
	CLI string
	// Context selects a docker CLI context (for a remote engine); empty means the current one.
	Context string
	// Runtime selects an OCI runtime such as runsc; empty means the engine's default.
	Runtime string
	// Memory is the memory limit; swap is capped to the same value.
	Memory limits.Bytes
	// Name is the container name. It is cosmetic: cleanup finds a run's
	// container by RunID, never by name.
	Name string
	// RunID is the run's unique identifier, put on the container as a label.
	RunID string
	// Deadline is the run's host deadline in unix seconds, put on the container as a label.
	Deadline int64
	// Owner, when set, identifies the supervisor process, put on the
	// container as a label after the deadline.
	Owner string
	// Seccomp is the path of the policy's seccomp profile file; the client
	// reads it and sends its content to the engine.
	Seccomp string
	// Image is the immutable image ID.
	Image string
	// Args are the runner's arguments, rendered after the image.
	Args []string
}

// Render returns the exact argv for one run. The order is fixed: the
// policy flags first, then optional ones, then the per-run name and labels,
// then the image and the runner's arguments.
func Render(c Checked) []string {
	s := c.s
	cli := s.CLI
	if cli == "" {
		cli = DefaultCLI
	}
	mem := s.Memory.String()
	argv := []string{cli}
	if s.Context != "" {
		argv = append(argv, flagContext, s.Context)
	}
	argv = append(argv, "run",
		flagRm,
		flagUser, user,
		flagCapDrop+"=ALL",
		flagSecurityOpt, noNewPrivilege,
		flagReadOnly,
		flagTmpfs, tmpfs,
		flagNetwork, "none",
		flagCPUs, strconv.Itoa(limits.CPUs),
		flagPidsLimit, strconv.Itoa(limits.PIDs),
		flagUlimit, ulimitNoFile,
		flagUlimit, ulimitCore,
		flagMemory, mem,
		flagMemorySwap, mem,
		flagIPC, "none",
		flagLogDriver, "none",
		flagPull, "never",
		flagInteractive,
		flagSecurityOpt, "seccomp="+s.Seccomp,
	)
	if s.Runtime != "" {
		argv = append(argv, flagRuntime, s.Runtime)
	}
	argv = append(argv,
		flagName, s.Name,
		flagLabel, LabelRunID+"="+s.RunID,
		flagLabel, LabelDeadline+"="+strconv.FormatInt(s.Deadline, 10),
	)
	if s.Owner != "" {
		argv = append(argv, flagLabel, LabelOwner+"="+s.Owner)
	}
	argv = append(argv, s.Image)
	return append(argv, s.Args...)
}
