package attest

import (
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/docker"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/hello"
	"github.com/synapse-lang/synapse-isolation/limits"
)

func TestCompareSelfcheck(t *testing.T) {
	assert.DeepEqual(t, failed(runcJudge(goodSelfcheck(), limits.DefaultMemory)), []string(nil))
	for name, tc := range map[string]struct {
		edit func(*hello.Selfcheck)
		want string
	}{
		"root":       {func(s *hello.Selfcheck) { s.UID = 0 }, "uid/gid"},
		"group":      {func(s *hello.Selfcheck) { s.Groups = []int{65534, 0} }, "uid/gid"},
		"caps":       {func(s *hello.Selfcheck) { s.CapEff = "00000000a80425fb" }, "capabilities"},
		"nnp":        {func(s *hello.Selfcheck) { s.NoNewPrivs = 0 }, "no new privileges"},
		"seccomp":    {func(s *hello.Selfcheck) { s.Seccomp = 0 }, "seccomp"},
		"memory":     {func(s *hello.Selfcheck) { s.MemoryMax = -1 }, "memory"},
		"swap":       {func(s *hello.Selfcheck) { s.SwapMax = 1 << 20 }, "swap"},
		"pids":       {func(s *hello.Selfcheck) { s.PidsMax = -1 }, "pids"},
		"cpu":        {func(s *hello.Selfcheck) { s.CPUMax = "max 100000" }, "cpu"},
		"nofile":     {func(s *hello.Selfcheck) { s.NoFileHard = 1024 }, "open files"},
		"core":       {func(s *hello.Selfcheck) { s.CoreSoft = -1 }, "core dumps"},
		"tmp exec":   {func(s *hello.Selfcheck) { s.TmpOptions = "rw,nosuid,nodev" }, "/tmp"},
		"tmp size":   {func(s *hello.Selfcheck) { s.TmpBytes = 1 << 30 }, "/tmp"},
		"tmp 0755":   {func(s *hello.Selfcheck) { s.TmpMode, s.TmpWritable = "755", false }, "/tmp"},
		"tmp no w":   {func(s *hello.Selfcheck) { s.TmpWritable = false }, "/tmp"},
		"tmp 0777":   {func(s *hello.Selfcheck) { s.TmpMode = "777" }, "/tmp"},
		"rw root":    {func(s *hello.Selfcheck) { s.RootReadOnly = false }, "read-only root"},
		"network":    {func(s *hello.Selfcheck) { s.Interfaces = []string{"lo", "eth0"} }, "network"},
		"shm":        {func(s *hello.Selfcheck) { s.DevShmWritable = true }, "/dev/shm"},
		"socket":     {func(s *hello.Selfcheck) { s.DockerSocket = true }, "docker socket"},
		"env":        {func(s *hello.Selfcheck) { s.EnvKeys = append(s.EnvKeys, "HTTP_PROXY") }, "environment"},
		"unreadable": {func(s *hello.Selfcheck) { s.Problems = []string{"pids.max: permission denied"} }, "selfcheck problems"},
	} {
		t.Run(name, func(t *testing.T) {
			s := goodSelfcheck()
			tc.edit(&s)
			got := failed(runcJudge(s, limits.DefaultMemory))
			assert.Check(t, len(got) == 1 && got[0] == tc.want, "failed %v, want [%s]", got, tc.want)
		})
	}
	assert.DeepEqual(t, failed(runcJudge(goodSelfcheck(), 1<<30)), []string{"memory"})
}

func TestAttestationErrorNamesEachBoundary(t *testing.T) {
	good := goodSelfcheck()
	assert.NilError(t, runcRefusal(&good, limits.Config{Memory: limits.DefaultMemory}))

	// An image that carries its own /tmp: the message says how to fix it.
	tmp := goodSelfcheck()
	tmp.TmpMode, tmp.TmpWritable = "755", false
	assert.ErrorContains(t, runcRefusal(&tmp, limits.Config{Memory: limits.DefaultMemory}),
		"/tmp is mode 755 and writable false, want 1777 and writable: the image carries its own /tmp, whose mode docker keeps over the tmpfs; build the image without /tmp, or with /tmp mode 1777")

	// What Debian's runsc shows from inside with the whole argv applied.
	weak := goodSelfcheck()
	weak.TmpOptions, weak.TmpBytes = "rw,nosuid,nodev,relatime", 8<<30
	weak.MemoryMax, weak.SwapMax, weak.PidsMax, weak.CPUMax = -1, -1, -1, ""
	weak.DevShmWritable = true
	err := runcRefusal(&weak, limits.Config{Memory: limits.DefaultMemory})
	assert.Error(t, err, "the container does not enforce the policy: memory limit not visible; "+
		"swap limit not visible; pids.max not visible; cpu.max not visible; /tmp is executable; "+
		"/tmp is 8589934592 bytes, want 33554432; /dev/shm is writable; the program was never sent")

	for _, f := range runcJudge(good, limits.DefaultMemory) {
		assert.Assert(t, f.Proves != "", "%s says what it proves", f.Check)
	}
}

// TestRecordJudges: the record proves what gVisor hides from the runner;
// each judge fails on the one field it reads.
func TestRecordJudges(t *testing.T) {
	good := docker.Record{RunID: "x", Runtime: "runsc", Memory: int64(limits.DefaultMemory), MemorySwap: int64(limits.DefaultMemory), PidsLimit: limits.GVisorHostPIDs}
	v := Sight{Record: &good, Memory: limits.DefaultMemory, Runtime: "runsc"}
	for _, c := range columns[limits.Runsc] {
		if c.record {
			_, wrong := c.judge(v)
			assert.Check(t, is.Equal(wrong, ""), c.Check)
		}
	}
	for name, tc := range map[string]struct {
		edit  func(*docker.Record)
		check string
		want  string
	}{
		"runc":      {func(r *docker.Record) { r.Runtime = "runc" }, "host runtime", `the engine ran the container under "runc", not "runsc"`},
		"swap":      {func(r *docker.Record) { r.MemorySwap = -1 }, "swap", "the engine's record allows swap or another limit (want Memory and MemorySwap 536870912)"},
		"no pids":   {func(r *docker.Record) { r.PidsLimit = -1 }, "host pids", "the host's task limit is -1, want 320"},
		"runc pids": {func(r *docker.Record) { r.PidsLimit = limits.PIDs }, "host pids", "the host's task limit is 64, want 320"},
	} {
		t.Run(name, func(t *testing.T) {
			r := good
			tc.edit(&r)
			v := Sight{Record: &r, Memory: limits.DefaultMemory, Runtime: "runsc"}
			for _, c := range columns[limits.Runsc] {
				if c.Check == tc.check {
					_, wrong := c.judge(v)
					assert.Check(t, is.Equal(wrong, tc.want))
				}
			}
		})
	}
	// Without the record, its checks fail: no column passes unread.
	for _, c := range columns[limits.Runsc] {
		if c.record {
			_, wrong := c.judge(Sight{})
			assert.Check(t, is.Equal(wrong, "the engine's record of the container was not read"), c.Check)
		}
	}
}

// TestCPUTimeNeedsTheCounter: a run with a CPU-time limit is refused at
// the hello when the runner cannot read the CPU counter; without a limit
// the same container serves.
func TestCPUTimeNeedsTheCounter(t *testing.T) {
	t.Parallel()
	s := goodSelfcheck()
	s.CPUCounter = false
	err := runcRefusal(&s, limitsWithCPU(0))
	assert.NilError(t, err)
	err = runcRefusal(&s, limitsWithCPU(time.Second))
	assert.ErrorContains(t, err, "the runner cannot read its cgroup's CPU counter, so the CPU-time limit cannot be enforced")
}

func limitsWithCPU(d time.Duration) limits.Config {
	c, err := limits.Config{CPUTime: d}.Resolve()
	if err != nil {
		panic(err)
	}
	return c.Config
}
