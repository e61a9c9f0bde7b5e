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
