package dockerargs

import (
	"strconv"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// Flag spellings of Render beyond the boundary table's: the channel to
// the runner and the per-run ones.
const (
	flagInteractive = "--interactive"
	flagRuntime     = "--runtime"
	flagName        = "--name"
	flagLabel       = "--label"
	flagContext     = "--context"
)

// lastPolicy is the row after whose argv Render emits --interactive, the
// runner's channel (no boundary of its own), and then the seccomp row's:
// the table's order but for the profile, which sits last where it was
// added when the profile became the project's own (golden-tested).
const lastPolicy, lateRow = "pull", "seccomp"

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
	// Limits are the run's, resolved: the memory limit is rendered, and
	// swap capped to the same value.
	Limits limits.Resolved
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
	argv := []string{cli}
	if s.Context != "" {
		argv = append(argv, flagContext, s.Context)
	}
	argv = append(argv, "run")
	rt, _ := limits.RuntimeOf(s.Runtime) // Check refused a runtime the table does not know
	argv = appendPolicy(argv, rt, s.Limits.Memory.String(), "seccomp="+s.Seccomp)
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

// appendPolicy appends the boundary table's argv under runtime rt in its
// order (the seccomp row's after --interactive), with the run's memory
// limit and seccomp option in place of the table's placeholders.
func appendPolicy(argv []string, rt limits.Runtime, memory, seccomp string) []string {
	late := row(lateRow)
	_ = row(lastPolicy)
	for _, b := range limits.Boundaries {
		if b.ID == lateRow {
			continue
		}
		argv = appendArgv(argv, b.ArgvUnder(rt), memory, seccomp)
		if b.ID == lastPolicy {
			argv = append(argv, flagInteractive)
			argv = appendArgv(argv, late.ArgvUnder(rt), memory, seccomp)
		}
	}
	return argv
}

// row is the table's row by its ID, wherever it stands in the table: the
// two rows Render places by name must exist, or no argv is rendered.
func row(id string) limits.Boundary {
	for _, b := range limits.Boundaries {
		if b.ID == id {
			return b
		}
	}
	panic("dockerargs: the boundary table has no row " + id)
}

// appendArgv appends one row's argv with the run's values in place of
// the placeholders.
func appendArgv(argv, row []string, memory, seccomp string) []string {
	for _, a := range row {
		switch a {
		case limits.ArgMemory:
			a = memory
		case limits.ArgSeccomp:
			a = seccomp
		}
		argv = append(argv, a)
	}
	return argv
}
