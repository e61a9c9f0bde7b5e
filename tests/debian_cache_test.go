package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestDebianCacheIsChecked: the .debs an image is built from are kept in
// the user's cache once they matched their lock, and a kept copy is
// checked like a download: one changed in the cache fails the build,
// naming the package and both digests, and is dropped, so the next build
// fetches it anew and passes.
func TestDebianCacheIsChecked(t *testing.T) {
	needEngine(t)
	root, err := filepath.Abs("..")
	assert.NilError(t, err)
	dpkg, err := exec.Command("dpkg", "--print-architecture").Output()
	assert.NilError(t, err)
	arch := strings.TrimSpace(string(dpkg))
	project, err := os.ReadFile(filepath.Join(root, "isolation", "container", "images", "python", arch+".lock"))
	assert.NilError(t, err)
	var line string
	for _, l := range strings.Split(string(project), "\n") {
		if strings.HasPrefix(l, "libbz2-1.0 ") {
			line = l
		}
	}
	assert.Assert(t, line != "", "the python lock pins no libbz2-1.0")
	sum := strings.Fields(line)[2]
	lock := filepath.Join(t.TempDir(), "one.lock")
	assert.NilError(t, os.WriteFile(lock, []byte(line+"\n"), 0o644))
	cache := t.TempDir()
	unpack := func() (string, error) {
		cmd := exec.Command(filepath.Join(root, "scripts", "debian-root.sh"), "python", filepath.Join(t.TempDir(), "context"), "--lock", lock)
		cmd.Env = append(os.Environ(), "SYNAPSE_CACHE="+cache)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		return stderr.String(), err
	}
	out, err := unpack()
	assert.NilError(t, err, out)
	kept := filepath.Join(cache, "debian-"+arch, "debs", sum+".deb")
	data, err := os.ReadFile(kept)
	assert.NilError(t, err, "the checked .deb was not kept")

	data[len(data)/2] ^= 0xff
	assert.NilError(t, os.WriteFile(kept, data, 0o644))
	out, err = unpack()
	assert.Check(t, err != nil, "a changed copy in the cache was used: %s", out)
	assert.Check(t, is.Contains(out, "python image: libbz2-1.0 "+strings.Fields(line)[1]+" has SHA-256 "))
	assert.Check(t, is.Contains(out, ", the lock says "+sum))
	_, err = os.Stat(kept)
	assert.Check(t, os.IsNotExist(err), "the changed copy was kept")

	out, err = unpack()
	assert.NilError(t, err, out)
	_, err = os.Stat(kept)
	assert.Check(t, err, "the fetched copy was not kept again")
}
