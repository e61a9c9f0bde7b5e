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
// host's memory and load average, and the paths its mounts and cgroups give away.
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
    "loadavg": read("/proc/loadavg"),
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

// hostSeen is what hostView printed.
type hostSeen struct {
	Cmdline    string `json:"cmdline"`
	BootID     string `json:"boot_id"`
	Release    string `json:"release"`
	MemTotalKB int64  `json:"memtotal_kb"`
	Mountinfo  string `json:"mountinfo"`
	Cgroup     string `json:"cgroup"`
	Loadavg    string `json:"loadavg"`
}

// TestHostDetailsUnderRunsc is the same attack under gVisor, whose kernel
// answers for the host's: none of what the program reads is the host's.
// The kernel command line, boot id and release are gVisor's own, MemTotal
// is the memory limit, the load average is not the host's, and no mount
// or cgroup path is the host's (the engine's data root, its cgroup
// parent).
func TestHostDetailsUnderRunsc(t *testing.T) {
	e := needGVisor(t)
	t.Parallel()
	since := time.Now().Add(-time.Second).Unix()
	r := runscPy(t, e, hostView, "--memory", "256m")
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	var seen hostSeen
	assert.NilError(t, json.Unmarshal([]byte(r.res.Output), &seen), r.res.Output)
	host := func(p string) string {
		b, err := os.ReadFile(p)
		assert.NilError(t, err)
		return strings.TrimSpace(string(b))
	}
	assert.Check(t, seen.Cmdline != host("/proc/cmdline"), "the host's kernel command line: %q", seen.Cmdline)
	assert.Check(t, seen.BootID != host("/proc/sys/kernel/random/boot_id"), "the host's boot id: %q", seen.BootID)
	assert.Check(t, seen.Release != host("/proc/sys/kernel/osrelease"), "the host's kernel release: %q", seen.Release)
	limitKB := int64(256 << 10)
	assert.Check(t, seen.MemTotalKB <= limitKB && seen.MemTotalKB >= limitKB*9/10,
		"MemTotal %d kB, the limit %d kB", seen.MemTotalKB, limitKB)
	hostLoad := strings.Fields(host("/proc/loadavg"))
	seenLoad := strings.Fields(seen.Loadavg)
	assert.Check(t, len(seenLoad) >= 3 && strings.Join(seenLoad[:3], " ") != strings.Join(hostLoad[:3], " "),
		"the host's load average: %q", seen.Loadavg)

	out, err := e.docker("events", "--since", fmt.Sprint(since), "--until", fmt.Sprint(time.Now().Unix()+1),
		"--filter", "label=io.synapse-isolation.run-id="+r.res.RunID, "--filter", "event=create", "--format", "{{.ID}}")
	assert.NilError(t, err)
	id := strings.TrimSpace(string(out))
	assert.Assert(t, len(id) == 64, "the second engine's create event of run %s: %q", r.res.RunID, id)
	// The host's paths: the engine's data root and the cgroup parent it
	// puts containers below. gVisor names its own cgroups by the
	// container's id (as the hostname gives away its first 12 digits
	// under either runtime), but never by the host's path of them.
	for _, leak := range []string{"/var/lib/docker", e.dir, e.cgroup} {
		assert.Check(t, !strings.Contains(seen.Mountinfo, leak), "mountinfo names %q:\n%s", leak, seen.Mountinfo)
		assert.Check(t, !strings.Contains(seen.Cgroup, leak), "cgroup names %q:\n%s", leak, seen.Cgroup)
	}
	for _, l := range strings.Split(seen.Cgroup, "\n") {
		_, path, _ := strings.Cut(l[strings.IndexByte(l, ':')+1:], ":")
		assert.Check(t, path != "/"+e.cgroup+"/"+id, "the host's cgroup path: %q", l)
	}
	t.Logf("the container id %s in gVisor's cgroup paths: %v", id[:12], strings.Contains(seen.Cgroup, id))
	t.Logf("under runsc the program read: kernel %s, boot id %s, MemTotal %d kB, load %q, cmdline %q, cgroup %q",
		seen.Release, seen.BootID, seen.MemTotalKB, seen.Loadavg, seen.Cmdline, strings.SplitN(seen.Cgroup, "\n", 2)[0])
}
