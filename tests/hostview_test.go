package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// hostView is a program an attacker runs to learn about the machine it
// landed on: the kernel's command line and release, the boot id, the
// host's memory and load, and the paths its mounts and cgroups give away.
const hostView = `import json, os
def read(p):
    try:
        with open(p) as f:
            return f.read().strip()
    except OSError as e:
        return "error: " + e.strerror
mem = [l for l in read("/proc/meminfo").splitlines() if l.startswith("MemTotal:")]
print(json.dumps({
    "cmdline": read("/proc/cmdline"),
    "boot_id": read("/proc/sys/kernel/random/boot_id"),
    "release": os.uname().release,
    "memtotal_kb": int(mem[0].split()[1]) if mem else -1,
    "mountinfo": read("/proc/self/mountinfo"),
    "cgroup": read("/proc/self/cgroup"),
}))
`

// TestHostDetailsUnderRunc is the attack of a program that reads what the
// kernel tells every container about its host. Under runc, the default
// runtime, the container shares the host's kernel, so each of these is
// the host's own: the README's limits say so, and this test holds that
// statement to the truth. A runtime that hides the host (gVisor) must make
// each of these assertions fail.
func TestHostDetailsUnderRunc(t *testing.T) {
	needEngine(t)
	t.Parallel()
	since := time.Now().Add(-time.Second).Unix()
	r := py(t, nil, hostView)
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	var seen struct {
		Cmdline    string `json:"cmdline"`
		BootID     string `json:"boot_id"`
		Release    string `json:"release"`
		MemTotalKB int64  `json:"memtotal_kb"`
		Mountinfo  string `json:"mountinfo"`
		Cgroup     string `json:"cgroup"`
	}
	assert.NilError(t, json.Unmarshal([]byte(r.res.Output), &seen), r.res.Output)
	host := func(p string) string {
		b, err := os.ReadFile(p)
		assert.NilError(t, err)
		return strings.TrimSpace(string(b))
	}
	assert.Check(t, is.Equal(seen.Cmdline, host("/proc/cmdline")), "the host's kernel command line")
	assert.Check(t, is.Equal(seen.BootID, host("/proc/sys/kernel/random/boot_id")), "the host's boot id")
	release := host("/proc/sys/kernel/osrelease")
	assert.Check(t, is.Equal(seen.Release, release), "the host's kernel release")
	var hostMem int64 = -1
	for _, l := range strings.Split(host("/proc/meminfo"), "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "MemTotal:" {
			n, err := strconv.ParseInt(f[1], 10, 64)
			assert.NilError(t, err)
			hostMem = n
		}
	}
	assert.Check(t, is.Equal(seen.MemTotalKB, hostMem), "the host's memory, not the container's limit")
	// The container's id appears in the host paths of its mounts and
	// cgroups: the engine's layout on the host's disk.
	out, err := exec.Command("docker", "events", "--since", fmt.Sprint(since), "--until", fmt.Sprint(time.Now().Unix()+1),
		"--filter", "label=io.synapse-isolation.run-id="+r.res.RunID, "--filter", "event=create", "--format", "{{.ID}}").Output()
	assert.NilError(t, err)
	id := strings.TrimSpace(string(out))
	assert.Assert(t, len(id) == 64, "the daemon's create event of run %s: %q", r.res.RunID, id)
	assert.Check(t, strings.Contains(seen.Mountinfo, id) || strings.Contains(seen.Cgroup, id),
		"no host path naming the container %s in mountinfo or cgroup:\n%s\n%s", id, seen.Mountinfo, seen.Cgroup)
	t.Logf("under runc the program read: kernel %s, boot id %s, MemTotal %d kB, cgroup %q", seen.Release, seen.BootID, seen.MemTotalKB,
		strings.SplitN(seen.Cgroup, "\n", 2)[0])
}
