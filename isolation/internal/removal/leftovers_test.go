package removal

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
)

// fakeProc is a /proc with a boot id and the given processes' start times.
func fakeProc(t *testing.T, boot string, starts map[int]uint64) procRoot {
	t.Helper()
	dir := t.TempDir()
	assert.NilError(t, os.MkdirAll(filepath.Join(dir, "sys/kernel/random"), 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "sys/kernel/random/boot_id"), []byte(boot+"\n"), 0o644))
	for pid, start := range starts {
		assert.NilError(t, os.MkdirAll(filepath.Join(dir, strconv.Itoa(pid)), 0o755))
		// The command may hold spaces and parentheses; fields count after the last ')'.
		stat := fmt.Sprintf("%d (a (b) c) S 1 1 1 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 %d 1000 10", pid, start)
		assert.NilError(t, os.WriteFile(filepath.Join(dir, strconv.Itoa(pid), "stat"), []byte(stat), 0o644))
	}
	return procRoot(dir)
}

// TestLeftoversWhoseOwnerIsGone: on this host, a container whose owner
// label names a process that no longer runs is left behind, whatever its
// deadline; an owner of another boot, or none, is for the deadline.
func TestLeftoversWhoseOwnerIsGone(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	fresh := strconv.FormatInt(now.Add(time.Hour).Unix(), 10)
	proc := fakeProc(t, "boot-a", map[int]uint64{100: 5000, 200: 7000})
	c, state := fake(t, "ok")
	for name, owner := range map[string]string{
		"alive":      "boot-a:100:5000",
		"dead":       "boot-a:300:9000",
		"pid-reused": "boot-a:200:6999",
		"other-boot": "boot-b:300:9000",
		"no-owner":   "",
		"bad-owner":  "nonsense",
	} {
		assert.NilError(t, fakedocker.AddOwnedContainer(state, name, "id-"+name, fresh, "running", owner))
	}
	found, err := leftovers(context.Background(), c, false, now, proc)
	assert.NilError(t, err)
	var taken []string
	for _, l := range found {
		assert.Equal(t, l.Why, "owner gone", l.Name)
		taken = append(taken, l.Name)
	}
	slices.Sort(taken)
	assert.DeepEqual(t, taken, []string{"dead", "pid-reused"})
}

func TestOwnerOfThisProcess(t *testing.T) {
	self, err := selfOwner()
	assert.NilError(t, err)
	assert.Equal(t, self.PID, os.Getpid())
	back, ok := ParseOwner(self.String())
	assert.Assert(t, ok)
	assert.Equal(t, back, self)
	assert.Assert(t, !hostProc.gone(self), "this process is alive")
	for _, bad := range []string{"", "a:b:c", "boot:0:1", "boot:1", "boot:1:2:3", ":1:2"} {
		_, ok := ParseOwner(bad)
		assert.Assert(t, !ok, bad)
	}
}
