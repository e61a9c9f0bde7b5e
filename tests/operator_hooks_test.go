package tests

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// hookWheel is the attack on the build host: a hash-pinned wheel whose
// .pth runs its module wherever the site directory is processed. The
// module writes a marker (its uid) to each of paths; where none of them
// can be seen and it runs as root, it is chrooted, and it first leaves
// the chroot as root can. It sets sys.synapse_hook, which a program in
// the image can see.
func hookWheel(t *testing.T, paths []string) (dir, requirements string) {
	dir = t.TempDir()
	var quoted []string
	for _, p := range paths {
		quoted = append(quoted, fmt.Sprintf("%q", p))
	}
	module := `import os, sys
sys.synapse_hook = True
paths = [` + strings.Join(quoted, ", ") + `]
if os.getuid() == 0 and not any(os.path.isdir(os.path.dirname(p)) for p in paths[:1]):
    try:
        fd = os.open("/", os.O_RDONLY)
        os.makedirs("/.hook-out", exist_ok=True)
        os.chroot("/.hook-out")
        os.fchdir(fd)
        for _ in range(64):
            os.chdir("..")
        os.chroot(".")
    except OSError:
        pass
for p in paths:
    try:
        with open(p, "a") as f:
            f.write("uid %d pid %d\n" % (os.getuid(), os.getpid()))
    except OSError:
        pass
`
	sum := wheel(t, dir, "tinyhook", "1.0", map[string]string{
		"tinyhook_start.py":    module,
		"tinyhook-startup.pth": "import tinyhook_start\n",
	})
	requirements = filepath.Join(dir, "requirements.txt")
	assert.NilError(t, os.WriteFile(requirements, []byte("tinyhook==1.0 --hash=sha256:"+sum+"\n"), 0o644))
	return dir, requirements
}

// hostMarkers are where the hook writes on the host if it runs there: a
// directory anyone may write (the build's steps may run as nobody) and a
// name of /tmp; both are removed after the test.
func hostMarkers(t *testing.T) []string {
	dir := t.TempDir()
	assert.NilError(t, os.Chmod(filepath.Dir(dir), 0o777))
	assert.NilError(t, os.Chmod(dir, 0o777))
	b := make([]byte, 8)
	_, err := rand.Read(b)
	assert.NilError(t, err)
	tmp := "/tmp/synapse-hook-" + hex.EncodeToString(b)
	t.Cleanup(func() { _ = os.Remove(tmp) })
	return []string{filepath.Join(dir, "marker"), tmp}
}

func assertNoMarker(t *testing.T, paths []string) {
	t.Helper()
	for _, p := range paths {
		data, err := os.ReadFile(p)
		assert.Check(t, os.IsNotExist(err), "the wheel's .pth ran on the build host: %s: %q", p, data)
	}
}

// TestOwnWheelStartupHooks: a wheel's .pth is code of the operator's, and
// it runs in the image, never on the build host, where the image's
// interpreter compiles the bytecode, finds the --preload and builds
// matplotlib's font cache. Without --startup-hooks the wheel is refused,
// naming it and its .pth, before anything is built; with it the image is
// built, with or without a preload, and the hook has run in the
// container alone. The refusal is its kind's part's (python's quick,
// science's heavy); the builds, of an operator's own image as
// TestOwnWheels', the heavy part's.
func TestOwnWheelStartupHooks(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"python", "science"} {
		t.Run(kind, func(t *testing.T) {
			needPart(t, "")
			t.Parallel()
			t.Run("refused", func(t *testing.T) {
				needKind(t, kind)
				t.Parallel()
				markers := hostMarkers(t)
				dir, reqs := hookWheel(t, markers)
				b := buildOwn(t, "synapse-"+kind+":hooks-refused", kind, "--wheels", dir, "--requirements", reqs)
				assert.Check(t, b.code != 0, "build-image.sh took a wheel with a .pth: %s", b.stderr)
				assert.Check(t, is.Contains(b.stderr, "tinyhook"))
				assert.Check(t, is.Contains(b.stderr, "tinyhook-startup.pth"))
				assert.Check(t, !strings.Contains(b.stderr, "building the"), "something was built:\n%s", b.stderr)
				assertNoMarker(t, markers)
			})
			for _, preload := range [][]string{nil, {"--preload", "tinyhook_start"}} {
				name := "allowed"
				if preload != nil {
					name += " with preload"
				}
				t.Run(name, func(t *testing.T) {
					needHeavy(t)
					t.Parallel()
					markers := hostMarkers(t)
					dir, reqs := hookWheel(t, markers)
					tag := "synapse-" + kind + ":hooks-" + strings.ReplaceAll(name, " ", "-")
					b := buildOwn(t, tag, append([]string{kind, "--wheels", dir, "--requirements", reqs, "--startup-hooks"}, preload...)...)
					assertNoMarker(t, markers)
					assert.Assert(t, b.code == 0, b.stderr)
					r := ownRun(t, b.id, "import sys\nprint(getattr(sys, 'synapse_hook', False), 'tinyhook_start' in sys.modules)")
					assert.Equal(t, r.res.Verdict, "ok", r.stdout+r.stderr)
					assert.Check(t, is.Equal(r.res.Output, "True True\n"), "the .pth did not run in the container")
					assert.Check(t, is.Contains(doctorContents(t, b.id), "requirements "+fileDigest(t, reqs)))
					assertNoMarker(t, markers)
				})
			}
		})
	}
}
