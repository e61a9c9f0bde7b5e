package tests

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestOwnShellRefused: Debian packages that bring a shell under a name
// no list of shells' names knows (a static build, a versioned name, a
// shell kept in a library directory) are pinned by --update-lock, and the
// build that unpacks them is refused, naming the package, before the
// engine builds anything. Each resolves the c image's whole lock anew:
// the heavy part's; TestOwnSetRefused refuses zsh and a package that
// brings bash in the quick part.
func TestOwnShellRefused(t *testing.T) {
	needHeavy(t)
	t.Parallel()
	for _, pkg := range []string{"bash-static", "zsh-static", "ksh93u+m", "klibc-utils"} {
		t.Run(pkg, func(t *testing.T) {
			t.Parallel()
			lock := filepath.Join(t.TempDir(), "own.lock")
			tag := "synapse-c:shell-check-" + strings.NewReplacer("+", "p", ".", "-").Replace(pkg)
			b := buildOwn(t, tag, "c", "--with", pkg, "--lock", lock, "--update-lock")
			assert.Check(t, b.code != 0, "build-image.sh took %s: %s", pkg, b.stderr)
			assert.Check(t, is.Contains(b.stderr, "c image: "+pkg+": "))
			assert.Check(t, is.Contains(b.stderr, "which no image may hold"))
			assert.Check(t, is.Equal(b.id, ""))
			assert.Check(t, !strings.Contains(b.stderr, "building the c image"), "the image was built:\n%s", b.stderr)
			assert.Check(t, exec.Command("docker", "image", "inspect", tag).Run() != nil, "an image was tagged %s", tag)
		})
	}
}
