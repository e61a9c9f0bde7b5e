package tests

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
)

func TestBoundaryOutputCap(t *testing.T) {
	needEngine(t)
	t.Parallel()
	assertOutputCapped(t, run(t, printMany))
}

// printMany prints 200000 bytes in lines of 100 and ends with "done".
const printMany = "for i in range(2000):\n  print('x' * 99)\n'done'"

// assertOutputCapped holds printMany's run to the output cap, on any
// runtime.
func assertOutputCapped(t *testing.T, r toolResult) {
	t.Helper()
	assert.Equal(t, r.code, 0, r.stderr)
	// Head and tail, each cut at a line, around the line naming the bytes dropped.
	assert.Check(t, len(r.res.Output) <= 64<<10 && len(r.res.Output) > 60<<10, len(r.res.Output))
	assert.Check(t, strings.HasPrefix(r.res.Output, strings.Repeat("x", 99)+"\n"))
	assert.Check(t, strings.HasSuffix(r.res.Output, "\n"+strings.Repeat("x", 99)+"\n"))
	assert.Check(t, is.Contains(r.res.Output, " bytes dropped ...]\n"))
	assert.Check(t, r.res.OutputTruncated)
	assert.Check(t, is.Equal(r.res.OutputBytes, int64(200000)))
	assert.Check(t, is.Equal(string(r.res.Result), `"done"`))
}

func TestBoundaryResponseCap(t *testing.T) {
	needEngine(t)
	t.Parallel()
	// A value too large for the 1 MiB response is the program's error; the
	// host's own bounded reader is proven against lying runners in
	// TestHostileImage (big-response, endless).
	r := run(t, "'x' * (2 << 20)")
	assert.Equal(t, r.code, 1, r.stderr)
	assert.Check(t, is.Equal(r.res.Verdict, "program_error"))
	assert.Check(t, is.Contains(r.stderr, "result too large: its response would exceed 1048576 bytes"))
}

func TestBoundaryOOM(t *testing.T) {
	needEngine(t)
	t.Parallel()
	r := run(t, "x = 'x' * (1 << 29)\nlen(x)", "--memory", "64m")
	assert.Equal(t, r.code, 137, r.stderr)
	assert.Check(t, is.Equal(r.res.Verdict, "oom"))
	assert.Check(t, is.Contains(r.stderr, "memory exhausted"))
}

// TestBoundaryOOMIsAlwaysOOM: memory exhaustion ends as oom, with the
// runner's own evidence and fast, for a Starlark list that grows, a
// string that is too large at once, and an exec-mode child that allocates,
// at 64m and 512m. (scripts/oom.sh runs each 20 times.)
func TestBoundaryOOMIsAlwaysOOM(t *testing.T) {
	needEngine(t)
	t.Parallel()
	for _, mem := range []string{"64m", "512m"} {
		for _, tc := range []struct {
			kind string
			run  func() toolResult
		}{
			{"list", func() toolResult {
				return run(t, "l = []\nwhile True:\n  l.append('y' * 1000)", "--memory", mem, "--timeout", "30s")
			}},
			{"string", func() toolResult { return run(t, "x = 'x' * (512 << 20)", "--memory", mem, "--timeout", "30s") }},
			{"exec", func() toolResult {
				r := tool(t, nil, "", "run", "--image", probeImage, "--memory", mem, "--timeout", "30s", "--code", "alloc", "--", "/probe")
				assertGone(t, r.res.Container)
				assertRunGone(t, r.res.RunID)
				return r
			}},
		} {
			t.Run(mem+"/"+tc.kind, func(t *testing.T) {
				start := time.Now()
				r := tc.run()
				took := time.Since(start)
				assert.Check(t, is.Equal(r.code, 137), r.stderr)
				assert.Check(t, is.Equal(r.res.Verdict, "oom"))
				assert.Check(t, strings.Contains(r.stderr, "(runner guard)") || strings.Contains(r.stderr, "(cgroup oom_kill counter"),
					"the runner names its evidence: %s", r.stderr)
				// A program left to thrash (before the guard, one ran 30 s
				// at 64m) meets its 30 s deadline: timeout, not oom. How
				// soon the runner sees the limit is a measure, not a test
				// (scripts/oom.sh): exec_ms is only logged.
				assert.Check(t, r.res.Timings.ExecMS != nil, "exec_ms is reported: %s", r.stdout)
				t.Logf("exec %s, start %s, cleanup %s", ms(r.res.Timings.ExecMS), ms(r.res.Timings.StartMS), ms(r.res.Timings.CleanupMS))
				t.Logf("%s in %s: %s", r.res.Verdict, took.Round(time.Millisecond), strings.TrimSpace(r.stderr))
			})
		}
	}
}

// timedOutWithin bounds how long after its deadline a run that meets it
// returns: it ends at its deadline (a runner that ignores its stop, 2 s
// after it) and its container is gone a fraction of a second later, so
// only a run that outlived its deadline many times over takes this long.
// How soon after the deadline a run returns is a measure, not a test:
// scripts/bench -timeout.
const timedOutWithin = 40 * time.Second

func TestBoundaryTimeoutLeavesNoContainer(t *testing.T) {
	needEngine(t)
	t.Parallel()
	// The runner stops the program at the host's stop, 100 ms before the
	// deadline; a runner that ignores it is killed and removed from
	// outside, 2 s after the deadline. Which end it meets holds by
	// construction: the runner answers within a fraction of a second of
	// its stop (supervisor.StopGrace leaves it 2 s), and a deadline of 20 s leaves
	// any hello ten times what it takes with a second suite alongside.
	const deadline = 20 * time.Second
	// The three wait out their deadline side by side, from this test's
	// start: as parallel subtests they would start only once every test
	// waiting for its turn had had it, and end the suite 20 s later.
	var wg sync.WaitGroup
	defer wg.Wait()
	for name, c := range map[string]struct {
		args []string
		how  string
	}{
		"starlark spin":  {[]string{"--image", refImage, "--code", "while True:\n  pass"}, "the host's stop"},
		"exec sleep":     {[]string{"--image", probeImage, "--code", "sleep", "--", "/probe"}, "the host's stop"},
		"runner ignores": {[]string{"--image", hostileImage, "--code", "hang"}, "passed the host deadline"},
	} {
		wg.Go(func() {
			t.Run(name, func(t *testing.T) {
				start := time.Now()
				r := tool(t, nil, "", append([]string{"run", "--timeout", deadline.String()}, c.args...)...)
				late := time.Since(start) - deadline
				assert.Check(t, is.Equal(r.code, 124), r.stderr)
				assert.Check(t, is.Equal(r.res.Verdict, "timeout"))
				assert.Check(t, is.Contains(r.stderr, c.how))
				assert.Check(t, is.Equal(r.res.Output, ""), "output is discarded on timeout")
				assert.Check(t, late < timedOutWithin, "returned %s after its deadline", late)
				assertGone(t, r.res.Container)
			})
		})
	}
}

func TestBoundaryRequestTooLargeRefusedBeforeDocker(t *testing.T) {
	needEngine(t)
	t.Parallel()
	// A docker on PATH that records any call: none may happen.
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	assert.NilError(t, fakedocker.WriteExecutable(filepath.Join(dir, "docker"), []byte("#!/bin/sh\necho \"$@\" >> "+calls+"\nexit 99\n")))
	env := []string{"PATH=" + dir + ":" + os.Getenv("PATH")}
	// {"source":"..."} is 13 bytes of framing: this encodes to 64 KiB + 1.
	src := strings.Repeat("x", 64<<10+1-13)
	r := tool(t, env, src, "run", "--image", refImage, "--code", "-")
	assert.Check(t, is.Equal(r.code, 2))
	assert.Check(t, is.Contains(r.stderr, "request: the program is 65524 bytes, 65537 bytes encoded, over the limit of 65536"))
	_, err := os.Stat(calls)
	assert.Check(t, os.IsNotExist(err), "docker was called")

	// Exactly 64 KiB is accepted and runs (on the real docker).
	r = run(t, "1#"+strings.Repeat("x", 64<<10-13-2))
	assert.Check(t, is.Equal(r.code, 0), r.stderr)
	assert.Check(t, is.Equal(string(r.res.Result), "1"))
}
