package isolation

import (
	"fmt"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// cfsPeriod is the CFS period docker sets with --cpus: within one period
// the quota may be spent on every core at once, so over a window the CPU
// time can exceed the quota's share of it by one period's quota.
const cfsPeriod = limits.CFSPeriodMicros * time.Microsecond

// peakSlack is how far a cgroup's memory peak may read past its limit:
// cgroup v1 charges in batches and was seen here 4096 bytes over a 64m
// limit (67112960 bytes) at an OOM.
const peakSlack = 4 << 20

// bound takes the runner's usage if it is possible: CPU time within what
// the quota allows over the time the host measured from sending the
// request to the response's arrival, memory within the limit (and peakSlack). Anything
// more is a hostile or broken runner's claim.
func (a *attempt) bound(u *protocol.Usage) (*Usage, error) {
	if u == nil {
		return nil, nil
	}
	var out Usage
	if u.CPUMicros != nil {
		window := max(a.responded.Sub(a.sent), 0)
		most := (window + cfsPeriod) * limits.CPUs
		cpu := time.Duration(*u.CPUMicros) * time.Microsecond
		switch {
		case cpu <= most:
		case a.plan.Column == limits.Runsc:
			// gVisor's cpuacct is its sentry's own account, which counts
			// more than the host's for several busy tasks (seen here: 11.85
			// s claimed in 8.14 s while the host's counter for the sandbox
			// read 1.00 CPU-s a second). The quota is the host's: no more
			// can have been used, so the claim is cut to it.
			cpu = most
		default:
			return nil, fmt.Errorf("response: claims %s of CPU time in %s, more than %d CPU allows",
				cpu.Round(time.Millisecond), window.Round(time.Millisecond), limits.CPUs)
		}
		ms := cpu.Milliseconds()
		out.CPUMS = &ms
	}
	if p := u.MemoryPeakBytes; p != nil {
		if *p > int64(a.plan.Limits.Memory)+peakSlack {
			return nil, fmt.Errorf("response: claims a memory peak of %d bytes, over the %s limit", *p, a.plan.Limits.Memory)
		}
		out.MemoryPeakBytes = p
	}
	return &out, nil
}
