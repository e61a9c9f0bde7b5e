package isolation

import (
	"context"
	"regexp"
	"strconv"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/supervisor"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
)

// stopped matches a request frame that carries the host's stop.
var stopped = regexp.MustCompile(`^\{"stop_ms":([0-9]+),"source":`)

// TestRunSendsTheHostsStop: a program that runs once is told to stop
// supervisor.StopLead before the host deadline; a judge's request, whose runner
// keeps its own deadline and shares it among the tests, is not.
func TestRunSendsTheHostsStop(t *testing.T) {
	t.Parallel()
	o, state := fake(t, "ok")
	_, err := Run(context.Background(), Request{Source: "1+2"}, o)
	assert.NilError(t, err)
	m := stopped.FindStringSubmatch(fakedocker.Stdin(state))
	assert.Assert(t, m != nil, fakedocker.Stdin(state))
	ms, err := strconv.Atoi(m[1])
	assert.NilError(t, err)
	assert.Check(t, time.Duration(ms)*time.Millisecond <= o.Limits.Timeout-supervisor.StopLead, "stop %d ms", ms)
	assert.Check(t, ms > 0)

	o, state = fake(t, "ok")
	o.Exec = []string{"sh"}
	_, _ = Run(context.Background(), Request{Source: "x", Tests: []Test{{Name: "1", Stdin: []byte("1\n")}}}, o)
	assert.Check(t, is.Regexp(`^\{"source":"x","tests":`, fakedocker.Stdin(state)))
}

// TestRunAnsweredAtTheStopIsNotKilled: a runner that answered at the
// host's stop is left to exit past the time it would be killed (its
// removal held until 300 ms after the deadline and supervisor.StopGrace, a tenth of
// supervisor.ExitGrace): no kill, no docker rm -f, and the verdict is the runner's.
func TestRunAnsweredAtTheStopIsNotKilled(t *testing.T) {
	t.Parallel()
	o, state := fake(t, "runner-stop-held")
	o.Limits.Timeout = meetTimeout
	release := time.Now().Add(meetTimeout + supervisor.StopGrace + supervisor.ExitGrace/10)
	stop := make(chan struct{})
	defer close(stop)
	whenever(func() bool { return time.Now().After(release) && len(fakedocker.Started(state)) == 1 }, stop, func() {
		_ = fakedocker.Release(state, fakedocker.Started(state)[0])
	})
	res, err := Run(context.Background(), Request{Source: "1+2"}, o)
	assert.Check(t, is.Equal(res.Verdict, protocol.Timeout), "%v", err)
	assert.Check(t, is.ErrorContains(err, "the host's stop"))
	for _, c := range fakedocker.Calls(state) {
		assert.Check(t, c[0] != "rm", "a call %q: the run was killed from outside", c)
	}
}
