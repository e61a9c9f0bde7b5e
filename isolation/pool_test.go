package isolation

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/poll"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/supervisor"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
	"github.com/synapse-lang/synapse-isolation/limits"
)

func fakePool(t *testing.T, mode string, parallel int, engines ...Engine) (*Pool, string) {
	t.Helper()
	o, state := fake(t, mode)
	po := PoolOptions{Run: o, Parallel: parallel, Idle: time.Minute}
	for _, e := range engines {
		e.CLI, e.Env = o.Engine.CLI, o.Engine.Env
		po.Engines = append(po.Engines, e)
	}
	p, err := NewPool(context.Background(), po)
	assert.NilError(t, err)
	return p, state
}

func runCalls(state string) [][]string {
	var out [][]string
	for _, c := range fakedocker.Calls(state) {
		i := 0
		if c[0] == "--context" {
			i = 2
		}
		if c[i] == "run" {
			out = append(out, c)
		}
	}
	return out
}

// runOKs runs n "ok" requests on p at once, each checked for an ok
// verdict, and delivers their results when all are done.
func runOKs(t *testing.T, p *Pool, n int) <-chan []Result {
	done := make(chan []Result, 1)
	results := make([]Result, n)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := p.Run(context.Background(), Request{Source: "ok"}, time.Now())
			assert.Check(t, err)
			assert.Check(t, is.Equal(res.Verdict, protocol.OK))
			results[i] = res
		}()
	}
	go func() { wg.Wait(); done <- results }()
	return done
}

func TestPoolRunsEveryRequestInItsOwnContainer(t *testing.T) {
	t.Parallel()
	p, state := fakePool(t, "by-source", 2)
	seen := map[string]bool{}
	for _, res := range <-runOKs(t, p, 6) {
		assert.Check(t, res.Timings.WaitMS != nil && res.Timings.ExecMS != nil && res.Timings.CleanupMS != nil)
		assert.Check(t, !seen[res.RunID], "a container is used once")
		seen[res.RunID] = true
	}
	assert.NilError(t, p.Close())
	assert.Check(t, is.Len(seen, 6))
	assert.Check(t, is.Len(fakedocker.Containers(state), 0), "Close leaves nothing, ready ones included")
	for _, c := range runCalls(state) {
		assert.Check(t, slices.Contains(c, "--idle"), "pool containers have an idle cap: %q", c)
	}
}

func TestPoolHostileResponseInTheMiddle(t *testing.T) {
	t.Parallel()
	p, state := fakePool(t, "by-source", 1)
	var verdicts []Verdict
	for _, src := range []string{"ok", "malformed", "big-response", "ok", "program-error"} {
		res, _ := p.Run(context.Background(), Request{Source: src}, time.Now())
		verdicts = append(verdicts, res.Verdict)
	}
	assert.NilError(t, p.Close())
	assert.DeepEqual(t, verdicts, []Verdict{protocol.OK, protocol.SandboxFailure, protocol.SandboxFailure, protocol.OK, protocol.ProgramError})
	assert.Check(t, is.Len(fakedocker.Containers(state), 0))
}

// TestPoolInterruptedRemovesEverything: an interrupt while a request runs
// (read by its container, which never answers) interrupts it, and Close
// leaves no container, running or ready.
func TestPoolInterruptedRemovesEverything(t *testing.T) {
	t.Parallel()
	o, state := fake(t, "by-source")
	ctx, cancel := context.WithCancelCause(context.Background())
	p, err := NewPool(ctx, PoolOptions{Run: o, Parallel: 3, Idle: time.Minute})
	assert.NilError(t, err)
	ran := make(chan struct{})
	defer close(ran)
	whenever(requestRead(state), ran, func() { cancel(errors.New("received interrupt")) })
	res, err := p.Run(ctx, Request{Source: "hang"}, time.Now())
	assert.Assert(t, supervisor.VerdictOf(err) == protocol.Interrupted, "%v", err)
	assert.Equal(t, res.Verdict, protocol.Interrupted)
	assert.NilError(t, p.Close())
	assert.Check(t, is.Len(fakedocker.Containers(state), 0))
}

func TestPoolChecksEveryEngineFirst(t *testing.T) {
	t.Parallel()
	o, state := fake(t, "no-image")
	_, err := NewPool(context.Background(), PoolOptions{Run: o, Parallel: 2})
	assert.Assert(t, supervisor.VerdictOf(err) == protocol.EngineFailure, "%v", err)
	assert.ErrorContains(t, err, "is not present (nothing is pulled)")
	assert.Check(t, is.Len(runCalls(state), 0), "no container starts before the checks pass")
}

// TestPoolChecksEveryEnginesOptionsOnce: each engine's options are
// checked when the pool is made, before docker is asked anything; an
// engine a container of could never be planned is refused then, not
// dropped at its first container.
func TestPoolChecksEveryEnginesOptionsOnce(t *testing.T) {
	t.Parallel()
	o, state := fake(t, "ok")
	po := PoolOptions{Run: o, Engines: []Engine{{Context: "engine-a"}, {Context: "x;y"}}}
	for i := range po.Engines {
		po.Engines[i].CLI, po.Engines[i].Env = o.Engine.CLI, o.Engine.Env
	}
	_, err := NewPool(context.Background(), po)
	assert.Check(t, is.Equal(supervisor.VerdictOf(err), protocol.Rejected), "%v", err)
	assert.Check(t, is.ErrorContains(err, `context: must match [a-zA-Z0-9][a-zA-Z0-9_.-]+ (got "x;y")`))
	assert.Check(t, is.Len(fakedocker.Calls(state), 0), "docker was called")
}

func TestPoolSpreadsOverEngines(t *testing.T) {
	t.Parallel()
	p, state := fakePool(t, "by-source", 4, Engine{Context: "engine-a"}, Engine{Context: "engine-b"})
	for i := 0; i < 8; i++ {
		res, err := p.Run(context.Background(), Request{Source: "ok"}, time.Now())
		assert.NilError(t, err)
		assert.Equal(t, res.Verdict, protocol.OK)
	}
	assert.NilError(t, p.Close())
	per := map[string]int{}
	for _, c := range runCalls(state) {
		per[c[1]]++
	}
	assert.Check(t, per["engine-a"] >= 2 && per["engine-b"] >= 2, "%v", per)
	for _, c := range fakedocker.Calls(state) {
		assert.Check(t, c[0] == "--context", "every call names its engine: %q", strings.Join(c, " "))
	}
}

// TestPoolDrainStillServesWaitingRequests: requests submitted before
// Drain all get a container, even when Drain comes before the pool
// started any.
func TestPoolDrainStillServesWaitingRequests(t *testing.T) {
	t.Parallel()
	for i := 0; i < 5; i++ {
		p, state := fakePool(t, "by-source", 4)
		done := runOKs(t, p, 3)
		p.Drain()
		select {
		case <-done:
		case <-time.After(time.Minute): // three runs, a second at most on a quiet machine
			t.Fatal("a request waited for a container that was never started")
		}
		assert.NilError(t, p.Close())
		assert.Check(t, is.Len(fakedocker.Containers(state), 0))
		assert.Check(t, len(runCalls(state)) <= 4, "no more containers than requests and the pool size")
	}
}

// TestPoolOneEngineFailsItsHello: the pool judges each container's hello
// before any request reaches it. With its only engine refused, no program
// runs: every request is a sandbox failure at once, and no container
// starts after the refusal.
func TestPoolOneEngineFailsItsHello(t *testing.T) {
	t.Parallel()
	o, state := fake(t, "hello-weak")
	var dropped []string
	var mu sync.Mutex
	p, err := NewPool(context.Background(), PoolOptions{Run: o, Parallel: 2, Idle: time.Minute,
		OnDrop: func(e Engine, err error) { mu.Lock(); dropped = append(dropped, err.Error()); mu.Unlock() }})
	assert.NilError(t, err)
	start := time.Now()
	for i := 0; i < 5; i++ {
		res, err := p.Run(context.Background(), Request{Source: "ok"}, time.Now())
		assert.Check(t, is.Equal(res.Verdict, protocol.SandboxFailure), "%v", err)
		assert.Check(t, is.ErrorContains(err, "pids.max not visible"))
		assert.Check(t, !res.Sandboxed)
	}
	// Refused at once, none waiting for its deadline (a minute, fake's).
	assert.Check(t, time.Since(start) < 30*time.Second, "took %s", time.Since(start))
	assert.NilError(t, p.Close())
	assert.Check(t, len(runCalls(state)) <= 2, "containers started after the refusal: %d", len(runCalls(state)))
	assert.Check(t, is.Equal(fakedocker.Stdin(state), ""), "a source reached a refused container")
	assert.Check(t, is.Len(fakedocker.Containers(state), 0))
	mu.Lock()
	defer mu.Unlock()
	assert.Check(t, is.Len(dropped, 1))
}

// TestPoolDropsTheFailingEngineOnly: of two engines, the one whose hello
// fails is dropped, said once, and the other serves every request.
func TestPoolDropsTheFailingEngineOnly(t *testing.T) {
	t.Parallel()
	good, goodState := fake(t, "by-source")
	bad, badState := fake(t, "hello-weak")
	var dropped []Engine
	var mu sync.Mutex
	p, err := NewPool(context.Background(), PoolOptions{Run: good, Parallel: 2, Idle: time.Minute,
		Engines: []Engine{{CLI: bad.Engine.CLI, Env: bad.Engine.Env, Context: "weak"}, {CLI: good.Engine.CLI, Env: good.Engine.Env, Context: "good"}},
		OnDrop:  func(e Engine, err error) { mu.Lock(); dropped = append(dropped, e); mu.Unlock() }})
	assert.NilError(t, err)
	for _, res := range <-runOKs(t, p, 6) {
		assert.Check(t, res.Sandboxed)
	}
	// The weak engine's first container may still be starting when the
	// good one has served every request: wait for its refusal (a start
	// and a hello, a fraction of a second on a quiet machine).
	poll.WaitOn(t, func(poll.LogT) poll.Result {
		mu.Lock()
		defer mu.Unlock()
		if len(dropped) > 0 {
			return poll.Success()
		}
		return poll.Continue("no engine dropped yet")
	}, poll.WithTimeout(time.Minute))
	assert.NilError(t, p.Close())
	mu.Lock()
	defer mu.Unlock()
	assert.Check(t, is.Len(dropped, 1))
	assert.Check(t, len(dropped) == 1 && dropped[0].Context == "weak", "%v", dropped)
	assert.Check(t, is.Equal(fakedocker.Stdin(badState), ""))
	assert.Check(t, is.Len(fakedocker.Containers(badState), 0))
	assert.Check(t, is.Len(fakedocker.Containers(goodState), 0))
}

// TestPoolClientVanishes: a docker client that disappears mid-batch drops
// its engine, and every request still waiting is answered at once with
// the engine's failure instead of a retry loop.
func TestPoolClientVanishes(t *testing.T) {
	t.Parallel()
	o, _ := fake(t, "by-source")
	self, err := os.ReadFile(o.Engine.CLI)
	assert.NilError(t, err)
	cli := filepath.Join(t.TempDir(), "docker")
	assert.NilError(t, fakedocker.WriteExecutable(cli, self))
	o.Engine.CLI = cli
	p, err := NewPool(context.Background(), PoolOptions{Run: o, Parallel: 1, Idle: time.Minute})
	assert.NilError(t, err)
	assert.NilError(t, os.Remove(cli))
	start := time.Now()
	var verdicts []Verdict
	for i := 0; i < 4; i++ {
		res, _ := p.Run(context.Background(), Request{Source: "ok"}, time.Now())
		verdicts = append(verdicts, res.Verdict)
	}
	// None waited for its deadline (a minute, fake's).
	assert.Check(t, time.Since(start) < 30*time.Second, "took %s", time.Since(start))
	assert.Check(t, is.Equal(verdicts[len(verdicts)-1], protocol.EngineFailure), "%v", verdicts)
	assert.NilError(t, p.Close())
}

// TestPoolRunHonoursItsContext: a request whose context ends while its
// program runs returns at once, interrupted, its container removed; it
// does not wait for the run's own deadline. The context ends once the
// container read the request, however long its start took.
func TestPoolRunHonoursItsContext(t *testing.T) {
	t.Parallel()
	p, state := fakePool(t, "hang", 1)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	ended := make(chan time.Time, 1)
	ran := make(chan struct{})
	whenever(requestRead(state), ran, func() {
		ended <- time.Now()
		cancel(errors.New("the caller gave up"))
	})
	res, err := p.Run(ctx, Request{Source: "1+2"}, time.Now())
	returned := time.Now()
	close(ran)
	assert.Check(t, is.Equal(res.Verdict, protocol.Interrupted), "%v", err)
	// From the end of its context, far sooner than the run's own deadline
	// (a minute from the request, fake's): the abort and a removal (three
	// docker calls, half a second on a quiet machine).
	select {
	case at := <-ended:
		assert.Check(t, returned.Sub(at) < 30*time.Second, "returned %s after its context ended", returned.Sub(at))
	default:
		t.Error("the run returned before its context ended")
	}
	assert.NilError(t, p.Close())
	assert.Check(t, is.Len(fakedocker.Containers(state), 0))
}

// TestPoolCloseWaitsForRuns: Close stops intake but lets a run that has
// its container finish, and returns only once it has.
func TestPoolCloseWaitsForRuns(t *testing.T) {
	t.Parallel()
	p, state := fakePool(t, "slow", 1)
	type outcome struct {
		res Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := p.Run(context.Background(), Request{Source: "1+2"}, time.Now())
		done <- outcome{res, err}
	}()
	poll.WaitOn(t, func(poll.LogT) poll.Result {
		if fakedocker.Stdin(state) != "" {
			return poll.Success()
		}
		return poll.Continue("the request has not reached its container")
	}, poll.WithTimeout(time.Minute), poll.WithDelay(10*time.Millisecond))
	// The container answers 400 ms after its request and is gone only
	// then: a Close that returned without waiting for the run would find
	// it still there, however slow or fast the machine.
	assert.NilError(t, p.Close())
	assert.Check(t, is.Len(fakedocker.Containers(state), 0), "Close returned before its run's container was gone")
	select {
	case o := <-done:
		assert.Check(t, o.err)
		assert.Check(t, is.Equal(o.res.Verdict, protocol.OK))
	case <-time.After(10 * time.Second):
		t.Fatal("Close returned, the run did not")
	}
}

// TestIdleRangeIsTwiceTheMargin: the policy's shortest idle cap leaves a
// ready container time to be given a request before its margin.
func TestIdleRangeIsTwiceTheMargin(t *testing.T) {
	assert.Equal(t, limits.MinIdle, 2*idleMargin)
}
