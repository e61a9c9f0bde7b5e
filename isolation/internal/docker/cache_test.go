package docker

import (
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/limits/seccomp"
)

// TestSeccompFile: the profile is written once, content-addressed, in a
// 0700 directory of the user's cache dir, and checked before every use:
// a changed or swapped file is rewritten, a directory others can write to
// is refused.
func TestSeccompFile(t *testing.T) {
	t.Parallel()
	cache := t.TempDir()
	env := []string{"HOME=/nonexistent", "XDG_CACHE_HOME=" + cache}
	seccompFile := func() (string, error) { return SeccompFile(env) }
	dir := filepath.Join(cache, "synapse-isolation")
	path, err := seccompFile()
	assert.NilError(t, err)
	assert.Equal(t, path, filepath.Join(dir, seccomp.FileName()))
	fi, err := os.Stat(dir)
	assert.NilError(t, err)
	assert.Equal(t, fi.Mode().Perm(), os.FileMode(0o700))
	got, err := os.ReadFile(path)
	assert.NilError(t, err)
	assert.DeepEqual(t, got, seccomp.Profile())

	// Tampered: rewritten with the policy's bytes.
	assert.NilError(t, os.WriteFile(path, []byte(`{"defaultAction":"SCMP_ACT_ALLOW"}`), 0o600))
	_, err = seccompFile()
	assert.NilError(t, err)
	got, _ = os.ReadFile(path)
	assert.DeepEqual(t, got, seccomp.Profile())

	// A symlink in its place: replaced by a file, its target untouched.
	target := filepath.Join(t.TempDir(), "elsewhere.json")
	assert.NilError(t, os.WriteFile(target, []byte("{}"), 0o600))
	assert.NilError(t, os.Remove(path))
	assert.NilError(t, os.Symlink(target, path))
	_, err = seccompFile()
	assert.NilError(t, err)
	fi, err = os.Lstat(path)
	assert.NilError(t, err)
	assert.Check(t, fi.Mode().IsRegular())
	other, _ := os.ReadFile(target)
	assert.Check(t, is.Equal(string(other), "{}"))

	// A directory others can write to is refused, not used.
	assert.NilError(t, os.Chmod(dir, 0o777))
	_, err = seccompFile()
	assert.ErrorContains(t, err, "others could change the profile")
	assert.NilError(t, os.Chmod(dir, 0o700))

	// A directory of another user is refused (root can make one).
	if os.Geteuid() == 0 {
		assert.NilError(t, os.Chown(dir, 12345, 12345))
		_, err = seccompFile()
		assert.ErrorContains(t, err, "belongs to uid 12345")
		assert.NilError(t, os.Chown(dir, 0, 0))
	}

	// No cache dir at all: a clear refusal.
	env = []string{"XDG_CACHE_HOME=relative", "HOME="}
	_, err = seccompFile()
	assert.ErrorContains(t, err, "no cache directory")
}
