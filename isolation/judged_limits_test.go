package isolation

import (
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// TestJudgedTestsKeepTheirLimits: the limits each test ran under, which
// the runner says (the time factor's part), reach the Result's tests.
func TestJudgedTestsKeepTheirLimits(t *testing.T) {
	t.Parallel()
	at := time.Now()
	a := &attempt{sent: at, responded: at.Add(10 * time.Second)}
	resp := protocol.Response{Tests: []protocol.TestResult{
		{Name: "1", Verdict: protocol.TestOK, TimeLimitMS: 2000, CPUTimeLimitMS: 1000},
		{Name: "2", Verdict: protocol.TestTimeout, NotRun: true},
	}}
	j, err := a.steps(resp, protocol.Timeout)
	assert.NilError(t, err)
	assert.Equal(t, len(j.tests), 2)
	assert.Equal(t, j.tests[0].TimeLimitMS, int64(2000))
	assert.Equal(t, j.tests[0].CPUTimeLimitMS, int64(1000))
	assert.Equal(t, j.tests[1].TimeLimitMS, int64(0))
	assert.Assert(t, j.tests[1].NotRun)
}
