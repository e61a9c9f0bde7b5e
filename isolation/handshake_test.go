package isolation

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/supervisor"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// TestHandshakeRefusesHostileRunners: whatever the runner's first frame,
// unless it is a hello that passes, the run is a sandbox failure, nothing
// is left, and not a byte of the source reaches the container's stdin.
func TestHandshakeRefusesHostileRunners(t *testing.T) {
	t.Parallel()
	for mode, want := range map[string]string{
		"hello-endless-line": "no hello from the runner within 5s",
		"hello-not-json":     "hello: want a JSON object",
		"hello-oversized":    "hello: larger than 16384 bytes",
		"hello-weak":         "the container does not enforce the policy: memory limit not visible; swap limit not visible; pids.max not visible;",
		"hello-twice":        "the runner wrote more after its hello, before it was sent a request",
		"v1":                 "no hello from the runner within 5s (its stdin closed, it answered with protocol version 1, want 8)",
	} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			// Only a refusal that waits for the hello meets the run's
			// deadline, which must come after the fake has started and
			// written what it writes (meetTimeout: 25 times that); every
			// other one comes long before a far deadline, however slowly a
			// loaded machine starts the fake.
			deadline := time.Minute
			if strings.Contains(want, "within 5s") {
				deadline = meetTimeout
			}
			start := time.Now()
			res, state, err := runFake(t, mode, func(o *Options) { o.Limits.Timeout = deadline })
			took := time.Since(start)
			assert.Equal(t, res.Verdict, protocol.SandboxFailure, "%v", err)
			assert.ErrorContains(t, err, want)
			assert.Assert(t, !res.Sandboxed)
			assert.Assert(t, res.Result == nil && res.Output == "")
			assert.Equal(t, fakedocker.Stdin(state), "", "the source reached the container")
			assert.Assert(t, took < deadline/2+20*time.Second, "took %s against a deadline of %s", took, deadline)
		})
	}
}

// TestHandshakeTimeoutBeforeHello: a run whose own deadline passes before
// the hello (a container slow to start, a runner that says nothing) timed
// out: its timeout, not a sandbox that failed; the source never went in.
func TestHandshakeTimeoutBeforeHello(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"silent", "late-hello"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			res, state, err := runFake(t, mode, func(o *Options) { o.Limits.Timeout = 1500 * time.Millisecond })
			assert.Equal(t, res.Verdict, protocol.Timeout, "%v", err)
			assert.Error(t, err, "timeout: the deadline of 1.5s passed before the sandbox was ready (no hello from the runner yet); the program was never sent")
			assert.Assert(t, !res.Sandboxed)
			assert.Equal(t, fakedocker.Stdin(state), "", "the source reached the container")
		})
	}
}

// TestHandshakeWrongMemory: the planned limit is what counts: a container
// showing 512m when 1g was planned is refused before the source goes in.
func TestHandshakeWrongMemory(t *testing.T) {
	t.Parallel()
	res, _, err := runFake(t, "ok", func(o *Options) { o.Limits.Memory = 1 << 30 })
	assert.NilError(t, err)
	assert.Equal(t, res.Verdict, protocol.OK)
	assert.Assert(t, res.Sandboxed)
	o, state := fake(t, "wrong-memory")
	o.Limits.Memory = 1 << 30
	a := &attempt{start: time.Now()}
	err = a.run(context.Background(), protocol.ProgramFrame(Request{Source: "1+2"}), o, planInput{})
	assert.Equal(t, supervisor.VerdictOf(err), protocol.SandboxFailure)
	assert.ErrorContains(t, err, "memory limit is 536870912 bytes, want 1073741824")
	assert.Equal(t, fakedocker.Stdin(state), "")
	assert.Assert(t, a.selfcheck != nil, "the refused hello is kept for doctor")
}

// TestHandshakeDockerFailsFirst: when docker itself failed, no container
// ran and the verdict is docker's, not a missing hello; which it was is
// decided from docker's exit status and the daemon's record by run id.
func TestHandshakeDockerFailsFirst(t *testing.T) {
	t.Parallel()
	for mode, want := range map[string]string{
		"exit125":      "docker run exited 125: docker: Error response from daemon: failure in mode exit125.",
		"no-container": `docker started no container (docker run exited 1): context "nope": context not found`,
	} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			res, state, err := runFake(t, mode)
			assert.Equal(t, res.Verdict, protocol.EngineFailure, "%v", err)
			assert.ErrorContains(t, err, want)
			assert.Assert(t, !strings.Contains(err.Error(), "sandbox failure"), err)
			assert.Assert(t, !res.Sandboxed)
			assert.Assert(t, res.ContainerExit == nil, "no container ran to have an exit status: %v", res.ContainerExit)
			assert.Equal(t, fakedocker.Stdin(state), "")
		})
	}
}

// TestHandshakeTimings: a run reports its phases, and the handshake is the
// runner's own figure.
func TestHandshakeTimings(t *testing.T) {
	t.Parallel()
	res, _, err := runFake(t, "ok")
	assert.NilError(t, err)
	tm := res.Timings
	assert.Assert(t, tm.WaitMS == nil)
	assert.Assert(t, tm.StartMS != nil && tm.ExecMS != nil && tm.CleanupMS != nil && tm.HandshakeUS != nil, "%+v", tm)
}

// TestStarlarkRefusesNUL: Starlark stops reading at a NUL byte, so a
// source with one is refused before docker is called; exec mode passes
// the bytes on as they are.
func TestStarlarkRefusesNUL(t *testing.T) {
	t.Parallel()
	o, state := fake(t, "ok")
	res, err := Run(context.Background(), Request{Source: "print(1)\n\x00\n1//0"}, o)
	assert.Equal(t, res.Verdict, protocol.Rejected, "%v", err)
	assert.ErrorContains(t, err, "source: NUL byte at offset 9")
	assert.Equal(t, len(fakedocker.Calls(state)), 0, "docker was called")

	o.Exec = []string{"cat"}
	res, err = Run(context.Background(), Request{Source: "a\x00b"}, o)
	assert.NilError(t, err)
	assert.Equal(t, res.Verdict, protocol.OK)
	assert.Check(t, is.Regexp(`^\{"stop_ms":[0-9]+,"source":"a\\u0000b"\}\n$`, fakedocker.Stdin(state)))
}

// TestPoolRefusesAnIdleItCannotServe: an idle cap within the pool's margin
// would discard every container; it is refused, not served by a hang.
func TestPoolRefusesAnIdleItCannotServe(t *testing.T) {
	t.Parallel()
	o, state := fake(t, "ok")
	_, err := NewPool(context.Background(), PoolOptions{Run: o, Idle: 2 * time.Second})
	assert.Equal(t, supervisor.VerdictOf(err), protocol.Rejected)
	assert.ErrorContains(t, err, "idle: must be from 10s to 10m0s")
	assert.Equal(t, len(fakedocker.Calls(state)), 0)

	// The parallelism's range is the pool's too.
	for _, n := range []int{-1, limits.MaxParallel + 1} {
		_, err = NewPool(context.Background(), PoolOptions{Run: o, Parallel: n})
		assert.Equal(t, supervisor.VerdictOf(err), protocol.Rejected)
		assert.ErrorContains(t, err, "parallel: must be from 1 to 64")
	}
	assert.Equal(t, len(fakedocker.Calls(state)), 0)
}

// TestHandshakeUnreachableEngineSaidOnce: a daemon docker run cannot reach
// is docker's failure, said once: no removal error after it, one listing
// spent on the removal, and duration_ms covers the cleanup.
func TestHandshakeUnreachableEngineSaidOnce(t *testing.T) {
	t.Parallel()
	o, state := fake(t, "unreachable")
	res, err := Run(context.Background(), Request{Source: "1+2"}, o)
	assert.Equal(t, res.Verdict, protocol.EngineFailure, "%v", err)
	assert.Error(t, err, "engine failure: docker run exited 125: docker: Cannot connect to the Docker daemon at unix:///fake.sock. Is the docker daemon running?")
	assert.Assert(t, res.ContainerExit == nil)
	// This process's listings: the run's reaper, left to go on trying,
	// lists too, as soon as it is told the removal was not confirmed.
	ps := 0
	for _, c := range fakedocker.CallsFrom(state, os.Getpid()) {
		if c[0] == "ps" {
			ps++
		}
	}
	assert.Equal(t, ps, 1, "one listing decides")
	assert.Assert(t, res.Timings.CleanupMS != nil)
	assert.Assert(t, res.DurationMS >= *res.Timings.CleanupMS, "duration %d ms, cleanup %d ms", res.DurationMS, *res.Timings.CleanupMS)
}
