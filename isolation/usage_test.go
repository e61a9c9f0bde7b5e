package isolation

import (
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/dockerargs"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/supervisor"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// TestRunUsage: the runner's usage reaches the result, in ms; a claim the
// quota or the limit makes impossible is a hostile response, refused; a
// CPU-time stop is its own verdict, and a lie when no limit was set.
func TestRunUsage(t *testing.T) {
	t.Parallel()
	res, _, err := runFake(t, "usage")
	assert.NilError(t, err)
	assert.Assert(t, res.Usage != nil && res.Usage.CPUMS != nil && res.Usage.MemoryPeakBytes != nil, "%+v", res.Usage)
	assert.Equal(t, *res.Usage.CPUMS, int64(1))
	assert.Equal(t, *res.Usage.MemoryPeakBytes, int64(9000000))

	res, _, err = runFake(t, "usage-cpu-claim")
	assert.Equal(t, res.Verdict, protocol.SandboxFailure, "%v", err)
	assert.Check(t, is.ErrorContains(err, "response: claims 5s of CPU time in "))
	assert.Check(t, res.Usage == nil)

	res, _, err = runFake(t, "usage-peak-claim")
	assert.Equal(t, res.Verdict, protocol.SandboxFailure, "%v", err)
	assert.Check(t, is.ErrorContains(err, "response: claims a memory peak of 99999999999 bytes, over the 512m limit"))

	// (The fake answers at once: 50 ms of CPU is within what one CPU
	// allows in the time around it, one CFS period included.)
	res, _, err = runFake(t, "cpu-limit", func(o *Options) { o.Limits.CPUTime = time.Second })
	assert.Equal(t, res.Verdict, protocol.CPUTimeout, "%v", err)
	assert.Check(t, is.ErrorContains(err, "cpu timeout: the runner stopped the program: CPU-time limit of 1s reached: 1s used"))
	assert.Check(t, res.Usage != nil && *res.Usage.CPUMS == 50, "%+v", res.Usage)

	res, _, err = runFake(t, "cpu-limit")
	assert.Equal(t, res.Verdict, protocol.SandboxFailure, "%v", err)
	assert.Check(t, is.ErrorContains(err, "a CPU-time stop, with no CPU-time limit set"))
	assert.Check(t, res.Usage == nil, "a refused response's usage is not taken")
}

// TestArgvCarriesTheCPUTimeAndAuditSeesIt: the CPU-time limit is the
// runner's argument after the image, as protocol renders it; audit reads
// the same spelling and reports the value.
func TestArgvCarriesTheCPUTimeAndAuditSeesIt(t *testing.T) {
	o, _ := fake(t, "ok") // the fake answers the image's labels: none
	o.Limits = limits.Config{CPUTime: 1500 * time.Millisecond}
	argv, err := o.Argv(time.Unix(0, 0))
	assert.NilError(t, err)
	assert.DeepEqual(t, argv[len(argv)-4:], []string{"--timeout", "10s", "--cpu-time", "1.5s"})
	argv[0] = "docker" // the fake's path, as the default client would read
	r, err := dockerargs.Audit(argv, dockerargs.AuditOptions{})
	assert.NilError(t, err)
	var found string
	for _, f := range r.Findings {
		if f.ID == "cpu-time" {
			found = string(f.Status) + ": " + f.Detail
		}
	}
	assert.Equal(t, found, "enforced: --cpu-time 1.5s (runner argument)")
}

// TestBoundCutsGVisorsCPUClaim: under runc a CPU-time claim past what the
// quota allows is a hostile response; under gVisor, whose sentry counts
// more than the host for several busy tasks, it is cut to the quota's
// bound. The memory bound is the same on both.
func TestBoundCutsGVisorsCPUClaim(t *testing.T) {
	t.Parallel()
	now := time.Now()
	claim := int64(11_850_000) // 11.85 s in 8 s, as gVisor was seen to claim
	for _, col := range []limits.Runtime{limits.Runc, limits.Runsc} {
		a := &attempt{plan: &supervisor.Plan{Column: col, Limits: limits.Resolved{Config: limits.Config{Memory: limits.DefaultMemory}}},
			sent: now, responded: now.Add(8 * time.Second)}
		u, err := a.bound(&protocol.Usage{CPUMicros: &claim})
		if col == limits.Runc {
			assert.Check(t, is.ErrorContains(err, "response: claims 11.85s of CPU time in 8s, more than 1 CPU allows"))
			continue
		}
		assert.NilError(t, err)
		assert.Check(t, is.Equal(*u.CPUMS, int64(8100)), "8 s and one CFS period")
		big := int64(limits.DefaultMemory) + peakSlack + 1
		_, err = a.bound(&protocol.Usage{MemoryPeakBytes: &big})
		assert.Check(t, is.ErrorContains(err, "over the 512m limit"))
	}
}
