package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
)

func TestBoundaryRootFilesystemReadOnly(t *testing.T) {
	needEngine(t)
	t.Parallel()
	r := probe(t, "rootfs")
	for _, p := range []string{"/probe-write", "/etc-probe", "mkdir"} {
		assert.Check(t, is.Equal(r[p], "EROFS"), p)
	}
	// The runner binary is root's: permission fails before the read-only check.
	assert.Check(t, r["/runner"] == "EACCES" || r["/runner"] == "EROFS", "/runner: %v", r["/runner"])
}

func TestBoundaryTmpNoExecAndBounded(t *testing.T) {
	needEngine(t)
	t.Parallel()
	r := probe(t, "tmp")
	assert.Check(t, is.Equal(r["write"], ""), "/tmp must be writable")
	assert.Check(t, is.Equal(r["copy"], ""), "a binary can be copied to /tmp")
	assert.Check(t, is.Equal(r["exec"], "EACCES"), "but not executed from it (noexec)")
	assert.Check(t, is.Equal(r["fill_error"], "ENOSPC"), "a write past 32 MiB fails")
	filled := int64(r["fill_bytes"].(float64))
	assert.Check(t, filled <= 32<<20 && filled > 30<<20, "wrote %d bytes before ENOSPC", filled)
}

func TestBoundaryNoNetwork(t *testing.T) {
	needEngine(t)
	t.Parallel()
	hostAddr := gateway + ":2375"
	r := probe(t, "net "+hostAddr)
	assert.Check(t, is.DeepEqual(r["interfaces"], []any{"lo"}))
	assert.Check(t, is.Equal(r["connect 1.1.1.1:443"], "ENETUNREACH"))
	assert.Check(t, is.Equal(r["connect "+hostAddr], "ENETUNREACH"))
}

func TestBoundaryNoPrivilegeGain(t *testing.T) {
	needEngine(t)
	t.Parallel()
	r := probe(t, "privs")
	assert.Check(t, is.Equal(r["setuid0"], "EPERM"))
	assert.Check(t, is.Equal(r["setgid0"], "EPERM"))
	assert.Check(t, is.Equal(r["CapEff"], "0000000000000000"))
	assert.Check(t, is.Equal(r["CapPrm"], "0000000000000000"))
	assert.Check(t, is.Equal(r["CapBnd"], "0000000000000000"))
	assert.Check(t, is.Equal(r["NoNewPrivs"], "1"))
	assert.Check(t, is.Equal(r["Seccomp"], "2"), "seccomp in filter mode")
}

func TestBoundaryUser65534(t *testing.T) {
	needEngine(t)
	t.Parallel()
	r := probe(t, "privs")
	assert.Check(t, is.Equal(r["uid"], float64(65534)))
	assert.Check(t, is.Equal(r["euid"], float64(65534)))
	assert.Check(t, is.Equal(r["gid"], float64(65534)))
	assert.Check(t, is.DeepEqual(r["groups"], []any{float64(65534)}))
}

// sentinel is an artificial value; it is never a real credential.
const sentinel = "synapse-sentinel-4f1c2a9e"

func TestBoundaryNoHostEnvironment(t *testing.T) {
	needEngine(t)
	t.Parallel()
	args := []string{"run", "--image", probeImage, "--code", "env", "--", "/probe"}
	r := tool(t, []string{"SYNAPSE_SENTINEL=" + sentinel, "AWS_SECRET_ACCESS_KEY=" + sentinel}, "", args...)
	assert.Equal(t, r.code, 0, r.stderr)
	assertGone(t, r.res.Container)
	assert.Check(t, !strings.Contains(r.res.Output, sentinel), r.res.Output)
	assert.Check(t, is.Contains(r.res.Output, "PATH="), "the probe did print its environment")
}

func TestBoundaryNoProxyFromDockerConfig(t *testing.T) {
	needEngine(t)
	t.Parallel()
	cfg := t.TempDir()
	proxy := "http://" + sentinel + ".invalid:3128"
	assert.NilError(t, os.WriteFile(filepath.Join(cfg, "config.json"),
		[]byte(`{"proxies":{"default":{"httpProxy":"`+proxy+`","noProxy":"`+sentinel+`"}}}`), 0o600))

	// The threat is real: plain docker run copies the proxy into the
	// container (a /tmp given, where exec mode puts the program's files).
	plain, err := exec.Command("sh", "-c", `echo '{"source":"env"}' | docker --config "$0" run --rm -i --network none --pull never --tmpfs /tmp "$1" --exec /probe`,
		cfg, probeImage).Output()
	assert.NilError(t, err)
	assert.Assert(t, is.Contains(string(plain), proxy), "docker itself injects config proxies")

	// The tool refuses instead of leaking it.
	r := tool(t, []string{"DOCKER_CONFIG=" + cfg}, "", "run", "--image", probeImage, "--code", "env", "--", "/probe")
	assert.Equal(t, r.code, 125)
	assert.Equal(t, r.res.Verdict, "engine_failure")
	assert.Check(t, is.Contains(r.stderr, "sets proxies (default.httpProxy, default.noProxy)"))
	assert.Check(t, !strings.Contains(r.stdout, proxy))
}

func TestBoundaryNoDockerSocket(t *testing.T) {
	needEngine(t)
	t.Parallel()
	r := probe(t, "socket")
	for _, p := range []string{"/var/run/docker.sock", "/run/docker.sock"} {
		assert.Check(t, is.Equal(r[p], "ENOENT"), p)
		assert.Check(t, is.Equal(r["dial "+p], "ENOENT"), p)
	}
}

func TestBoundaryDevShmNotWritable(t *testing.T) {
	needEngine(t)
	t.Parallel()
	r := probe(t, "shm")
	assert.Check(t, r["write"] == "ENOENT" || r["write"] == "EACCES" || r["write"] == "EROFS", "write: %v", r["write"])
}

func TestBoundaryCgroupLimits(t *testing.T) {
	needEngine(t)
	t.Parallel()
	r := probe(t, "cgroup", "--memory", "256m")
	str := func(k string) string { s, _ := r[k].(string); return s }
	if v2 := str("/sys/fs/cgroup/memory.max"); v2 != "" {
		assert.Check(t, is.Equal(v2, strconv.Itoa(256<<20)))
		assert.Check(t, is.Equal(str("/sys/fs/cgroup/memory.swap.max"), "0"))
		assert.Check(t, is.Equal(str("/sys/fs/cgroup/pids.max"), "64"))
		assert.Check(t, is.Equal(str("/sys/fs/cgroup/cpu.max"), "100000 100000"))
		return
	}
	// cgroup v1: memsw is memory plus swap, so equal values mean zero swap.
	assert.Check(t, is.Equal(str("/sys/fs/cgroup/memory/memory.limit_in_bytes"), strconv.Itoa(256<<20)))
	assert.Check(t, is.Equal(str("/sys/fs/cgroup/memory/memory.memsw.limit_in_bytes"), strconv.Itoa(256<<20)))
	assert.Check(t, is.Equal(str("/sys/fs/cgroup/pids/pids.max"), "64"))
	cpuMax := str("/sys/fs/cgroup/cpu/cpu.cfs_quota_us") + " " + str("/sys/fs/cgroup/cpu/cpu.cfs_period_us")
	assert.Check(t, is.Equal(cpuMax, "100000 100000"))
}

func TestBoundaryRlimits(t *testing.T) {
	needEngine(t)
	t.Parallel()
	r := probe(t, "limits")
	limits, _ := r["limits"].(string)
	assert.Check(t, regexp.MustCompile(`(?m)^Max open files\s+64\s+64\s+files`).MatchString(limits), limits)
	assert.Check(t, regexp.MustCompile(`(?m)^Max core file size\s+0\s+0\s+bytes`).MatchString(limits), limits)
}

func TestBoundaryOpenFiles(t *testing.T) {
	needEngine(t)
	t.Parallel()
	r := probe(t, "nofile")
	assert.Check(t, is.Equal(r["error"], "EMFILE"))
	assert.Check(t, r["highest_fd"].(float64) <= 63, "fd %v opened; the 65th file must fail", r["highest_fd"])
	assert.Check(t, r["opened"].(float64) > 10, "the probe did open files: %v", r["opened"])
}

// TestBoundaryForkBomb is not parallel: it measures the host's
// responsiveness while the container tries to exhaust the PID space.
func TestBoundaryForkBomb(t *testing.T) {
	needEngine(t)
	stop := make(chan struct{})
	worst := make(chan time.Duration, 1)
	go func() {
		var max time.Duration
		for {
			select {
			case <-stop:
				worst <- max
				return
			case <-time.After(50 * time.Millisecond):
			}
			start := time.Now()
			_ = exec.Command("true").Run()
			max = maxDur(max, time.Since(start))
		}
	}()
	r := probe(t, "forkbomb")
	close(stop)
	host := <-worst
	assert.Check(t, is.Equal(r["error"], "EAGAIN"), "fork must fail at the pids limit")
	forked := int(r["forked"].(float64))
	assert.Check(t, forked > 0 && forked < 64, "forked %d children", forked)
	assert.Check(t, is.Equal(r["pids_current"], "64"), "the cgroup sits exactly at its limit")
	assert.Check(t, host < time.Second, "host exec took %s during the fork bomb", host)
	t.Logf("forked %d before EAGAIN; slowest host exec meanwhile %s", forked, host)
}

func maxDur(a, b time.Duration) time.Duration {
	if a > b {
		return a
	}
	return b
}

// TestBoundaryOneCPU is not parallel: it measures CPU time.
func TestBoundaryOneCPU(t *testing.T) {
	needEngine(t)
	r := probe(t, "cpu")
	used := r["cpu_seconds"].(float64)
	t.Logf("4 busy threads got %.2f CPU seconds in 2 s of wall time", used)
	// Four busy threads for 2 s of wall time get about 2 s of CPU under a
	// one-CPU quota (at most 2.1: one CFS period more), less on a machine
	// busy with other work; unlimited on two cores they would get about 4 s.
	// The lower bound only shows that the probe spun at all.
	assert.Check(t, used < 2.6, "used %.2f CPU seconds in 2 s of wall time", used)
	assert.Check(t, used > 0.2, "the probe did spin: %.2f CPU seconds", used)
}

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
	// its stop (stopGrace leaves it 2 s), and a deadline of 20 s leaves
	// any hello ten times what it takes with a second suite alongside.
	const deadline = 20 * time.Second
	for name, c := range map[string]struct {
		args []string
		how  string
	}{
		"starlark spin":  {[]string{"--image", refImage, "--code", "while True:\n  pass"}, "the host's stop"},
		"exec sleep":     {[]string{"--image", probeImage, "--code", "sleep", "--", "/probe"}, "the host's stop"},
		"runner ignores": {[]string{"--image", hostileImage, "--code", "hang"}, "passed the host deadline"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
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
