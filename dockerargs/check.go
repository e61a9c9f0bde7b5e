package dockerargs

import (
	"errors"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// Checked is a Spec that passed Check. Render takes only a Checked, so no
// argv is rendered from a field that could be read as something else (a
// name like "--privileged", a tag that can be re-pointed, a memory limit
// outside the policy's range).
type Checked struct{ s Spec }

// Check validates every field of s that reaches the argv, with the
// policy's own rules, and returns it ready to Render. It is the one
// validator of these fields; isolation builds its plan through it.
func Check(s Spec) (Checked, error) {
	if !s.Limits.Valid() {
		// The one check of the limits' bounds is limits.Config.Resolve's.
		return Checked{}, errors.New("limits: not resolved (limits.Config.Resolve checks their bounds)")
	}
	if err := limits.CheckImageID(s.Image); err != nil {
		return Checked{}, err
	}
	if err := checkNames(s.RunID, s.Name); err != nil {
		return Checked{}, err
	}
	for _, f := range []struct{ field, value string }{{"context", s.Context}, {"runtime", s.Runtime}} {
		if f.value == "" { // the current context, the default runtime
			continue
		}
		if err := limits.CheckName(f.field, f.value); err != nil {
			return Checked{}, err
		}
	}
	if _, err := limits.RuntimeOf(s.Runtime); err != nil {
		return Checked{}, err
	}
	if s.Seccomp == "" {
		return Checked{}, errors.New("no seccomp profile file: the run would get the engine's default filter")
	}
	return Checked{s: s}, nil
}

// Named is c for another container of the same options: its own run id
// and name, checked as Check checks them, every other field as Check
// found it. A pool checks its containers' options once and names each
// container as it starts.
func (c Checked) Named(runID, name string) (Checked, error) {
	if err := checkNames(runID, name); err != nil {
		return Checked{}, err
	}
	c.s.RunID, c.s.Name = runID, name
	return c, nil
}

// checkNames checks a run id and a container name, which reach the argv
// as a label's value and --name's.
func checkNames(runID, name string) error {
	if err := limits.CheckName("run id", runID); err != nil {
		return err
	}
	return limits.CheckName("name", name)
}

// Run is c with the run's deadline (unix seconds, put on a label) and the
// runner's arguments (after the image: docker reads nothing of them), the
// two fields known only once the image was asked; Check checks neither.
func (c Checked) Run(deadline int64, args []string) Checked {
	c.s.Deadline, c.s.Args = deadline, args
	return c
}
