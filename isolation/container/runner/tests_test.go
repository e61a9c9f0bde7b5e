package main

import (
	"testing"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol/runargs"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestTestLimits: --test-timeout and --cpu-time times the time factor,
// the wall-clock limit never past the time left; without --test-timeout
// a fair share of it, which no factor scales. A grader's own limits are
// never scaled.
func TestTestLimits(t *testing.T) {
	t.Parallel()
	java := runargs.Args{TestTimeout: time.Second, CPUTime: 500 * time.Millisecond, TimeFactor: 2}
	for _, tc := range []struct {
		cfg       runargs.Args
		left      time.Duration
		tests     int
		grader    bool
		wall, cpu time.Duration
	}{
		{runargs.Args{TestTimeout: time.Second, CPUTime: 500 * time.Millisecond}, time.Minute, 3, false, time.Second, 500 * time.Millisecond},
		{java, time.Minute, 3, false, 2 * time.Second, time.Second},
		{java, 1500 * time.Millisecond, 3, false, 1500 * time.Millisecond, time.Second},
		{runargs.Args{TimeFactor: 2.5}, 9 * time.Second, 3, false, 3 * time.Second, 0},
		{runargs.Args{TestTimeout: 200 * time.Millisecond, TimeFactor: 1.5}, time.Minute, 1, false, 300 * time.Millisecond, 0},
		{java, time.Minute, 3, true, time.Second, 500 * time.Millisecond},
		{java, 700 * time.Millisecond, 3, true, 700 * time.Millisecond, 500 * time.Millisecond},
	} {
		wall, cpu := testLimits(tc.cfg, tc.left, tc.tests, tc.grader)
		assert.Check(t, is.Equal(wall, tc.wall), "%+v", tc)
		assert.Check(t, is.Equal(cpu, tc.cpu), "%+v", tc)
	}
}
