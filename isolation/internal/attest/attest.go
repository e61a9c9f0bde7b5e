// Package attest judges a container's own account of its sandbox, the
// runner's hello (and, where a runtime hides part of it from the runner,
// the engine's record of the container), against the boundary table of
// package limits: one column per runtime, one check per proof. A run
// sends its request only if every check of its column passes (Refusal);
// doctor prints each check (Judge).
package attest

import (
	"errors"
	"slices"
	"strings"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/docker"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/hello"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// Sight is what a run's checks judge: the runner's hello, the planned
// limits and runtime, and, where the column needs it, the engine's record.
type Sight struct {
	Hello   hello.Selfcheck
	Memory  limits.Bytes
	Runtime string // the --runtime name asked for; empty is the default
	Record  *docker.Record
}

// Finding is one check of a column judged: the check's name and what it
// proves (the boundary table's words), what was seen and, when the
// boundary is not in force, what is wrong ("" when it holds).
type Finding struct {
	Check, Proves string
	Seen, Wrong   string
}

// check is one check of a runtime's hello: its judge and the boundary
// table's words for it.
type check struct {
	limits.Proof
	judge func(v Sight) (seen, wrong string)
	// record says the judge reads the engine's record of the container.
	record bool
}

// checksOf returns the checks that prove the boundary under runtime r, in
// the judges' order: the hello's, then the record's.
func checksOf(r limits.Runtime) []check {
	proofs := map[string]limits.Proof{}
	for _, p := range limits.HelloProofs(r) {
		proofs[p.Judge] = p
	}
	var cs []check
	for _, j := range helloJudges {
		if p, ok := proofs[j.kind]; ok {
			judge := j.judge
			cs = append(cs, check{Proof: p, judge: func(v Sight) (string, string) { return judge(v.Hello, v.Memory) }})
		}
	}
	for _, j := range recordJudges {
		if p, ok := proofs[j.kind]; ok {
			judge := j.judge
			cs = append(cs, check{Proof: p, record: true, judge: func(v Sight) (string, string) {
				if v.Record == nil {
					return "no record", "the engine's record of the container was not read"
				}
				return judge(*v.Record, v.Memory, v.Runtime)
			}})
		}
	}
	return cs
}

// columns are the checks of each runtime the table knows, built once from
// the table and never changed.
var columns = func() map[limits.Runtime][]check {
	m := map[limits.Runtime][]check{}
	for _, r := range limits.Runtimes {
		m[r] = checksOf(r)
	}
	return m
}()

// NeedsRecord says whether runtime r's column reads the engine's record
// of the container.
func NeedsRecord(r limits.Runtime) bool {
	return slices.ContainsFunc(columns[r], func(c check) bool { return c.record })
}

// Judge judges what the run saw against its column of the boundary
// table: one Finding per proof, in the table's order.
func Judge(col limits.Runtime, v Sight) []Finding {
	fs := make([]Finding, 0, len(columns[col]))
	for _, c := range columns[col] {
		seen, wrong := c.judge(v)
		fs = append(fs, Finding{Check: c.Check, Proves: c.Proves, Seen: seen, Wrong: wrong})
	}
	return fs
}

// Refusal names every boundary the run saw out of force under its
// column, or returns nil when all hold. A run with a CPU-time limit
// (cpuTimeLimit) also needs the runner to read its cgroup's CPU counter.
func Refusal(col limits.Runtime, v Sight, cpuTimeLimit bool) error {
	var wrong []string
	for _, c := range columns[col] {
		if _, w := c.judge(v); w != "" {
			wrong = append(wrong, w)
		}
	}
	if cpuTimeLimit && !v.Hello.CPUCounter {
		// The runner would have nothing to count the limit on.
		wrong = append(wrong, "the runner cannot read its cgroup's CPU counter, so the CPU-time limit cannot be enforced")
	}
	if len(wrong) == 0 {
		return nil
	}
	return errors.New("the container does not enforce the policy: " + strings.Join(wrong, "; ") + "; the program was never sent")
}
