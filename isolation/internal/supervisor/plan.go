package supervisor

import (
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol/runargs"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// Plan is a fully resolved, validated run: its identity, its bounds and
// the exact argv it executes.
type Plan struct {
	// RunID is unique per run; the container carries it as a label.
	RunID string
	// Name is the container name (cosmetic).
	Name string
	// Deadline is the latest the container may live: the host deadline of
	// a run that sends its request at once, plus the idle cap of one
	// started ahead of its request. The container carries it as a label.
	Deadline time.Time
	// Image and Limits are the validated image ID and bounds.
	Image  string
	Limits limits.Resolved
	// Runner is the runner's command line, rendered at the end of Argv.
	Runner runargs.Args
	// Argv is the exact docker argv, client binary first.
	Argv []string
	// Runtime is the --runtime name asked for (empty: the engine's
	// default), and Column the boundary table's column that judges the
	// hello under it.
	Runtime string
	Column  limits.Runtime
}
