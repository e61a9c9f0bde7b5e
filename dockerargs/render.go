// Package dockerargs renders the exact `docker run` argv of the isolation
// policy and audits any captured `docker run` argv against it. It is pure:
// no I/O, no clock, no randomness. Everything that varies per run (the name,
// the labels, the engine context) is a field of Spec.
package dockerargs

import (
	"fmt"
	"strconv"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// Flag spellings, named once so Render and Audit cannot drift apart.
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
	// User is the numeric user and group; numeric so no passwd file in the image can remap it.
	User = fmt.Sprintf("%d:%d", limits.UID, limits.GID)
	// TmpfsOptions mounts /tmp as the only writable place: bounded, no exec, no setuid, no devices.
	TmpfsOptions = "rw,noexec,nosuid,nodev,size=" + limits.FormatMemory(limits.TmpBytes) + ",mode=1777"
	// Tmpfs is the --tmpfs value.
	Tmpfs          = "/tmp:" + TmpfsOptions
	ulimitNoFile   = fmt.Sprintf("nofile=%d:%d", limits.NoFile, limits.NoFile)
	ulimitCore     = fmt.Sprintf("core=%d:%d", limits.Core, limits.Core)
	noNewPrivilege = "no-new-privileges"
)

// Label keys the tool puts on its containers; gc finds leftovers by them.
const (
	LabelRunID    = "io.synapse-isolation.run-id"
	LabelDeadline = "io.synapse-isolation.deadline"
)

// DefaultCLI is the client binary used when Spec.CLI is empty.
const DefaultCLI = "docker"

// Spec is everything that varies between two renders of the policy argv.
type Spec struct {
	// CLI is the client binary (docker, or a compatible one such as podman); empty means docker.
	CLI string
	// Context selects a docker CLI context (for a remote engine); empty means the current one.
	Context string
	// Runtime selects an OCI runtime such as runsc; empty means the engine's default.
	Runtime string
	// Memory is the memory limit in bytes; swap is capped to the same value.
	Memory int64
	// Name is the container name; it must be unique per run so cleanup can find it.
	Name string
	// RunID is the run identifier put on the container as a label.
	RunID string
	// Deadline is the run's host deadline in unix seconds, put on the container as a label.
	Deadline int64
	// Image is the immutable image ID.
	Image string
	// Args are the runner's arguments, rendered after the image.
	Args []string
}

// Validate reports what in s would make a rendered argv unsafe or ambiguous.
func (s Spec) Validate() error {
	if err := limits.ValidateImageID(s.Image); err != nil {
		return err
	}
	if err := limits.ValidateMemory(s.Memory); err != nil {
		return err
	}
	if err := validateName(flagName, s.Name); err != nil {
		return err
	}
	if s.RunID == "" {
		return fmt.Errorf("run id: must not be empty")
	}
	for flag, v := range map[string]string{flagContext: s.Context, flagRuntime: s.Runtime} {
		if v != "" {
			if err := validateName(flag, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// validateName applies docker's container name grammar to a name, context or
// runtime, so the value never reaches the CLI as something it would parse
// differently (a flag, say).
func validateName(flag, n string) error {
	if n == "" {
		return fmt.Errorf("%s: must not be empty", flag)
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if !alnum && (i == 0 || c != '_' && c != '.' && c != '-') {
			return fmt.Errorf("%s: %q must match [a-zA-Z0-9][a-zA-Z0-9_.-]*", flag, n)
		}
	}
	return nil
}

// Render returns the exact argv for one run. The order is fixed: the
// policy flags first, then optional ones, then the per-run name and labels,
// then the image and the runner's arguments.
func Render(s Spec) []string {
	cli := s.CLI
	if cli == "" {
		cli = DefaultCLI
	}
	mem := limits.FormatMemory(s.Memory)
	argv := []string{cli}
	if s.Context != "" {
		argv = append(argv, flagContext, s.Context)
	}
	argv = append(argv, "run",
		flagRm,
		flagUser, User,
		flagCapDrop+"=ALL",
		flagSecurityOpt, noNewPrivilege,
		flagReadOnly,
		flagTmpfs, Tmpfs,
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
	)
	if s.Runtime != "" {
		argv = append(argv, flagRuntime, s.Runtime)
	}
	argv = append(argv,
		flagName, s.Name,
		flagLabel, LabelRunID+"="+s.RunID,
		flagLabel, LabelDeadline+"="+strconv.FormatInt(s.Deadline, 10),
		s.Image,
	)
	return append(argv, s.Args...)
}
