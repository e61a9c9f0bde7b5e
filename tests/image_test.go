package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestImageKindsRegistry holds isolation/container/images to its registry, with no
// engine: each kind's directory has its Dockerfile, a kind unpacked from
// Debian's packages has its root script and a lock per architecture
// (`package version sha256` a line), and no directory is left unlisted.
func TestImageKindsRegistry(t *testing.T) {
	dir := filepath.Join("..", "isolation", "container", "images")
	listed := map[string]bool{}
	tags := map[string]string{}
	pin := regexp.MustCompile(`^[a-z0-9][a-z0-9.+-]+ [^ ]+ [0-9a-f]{64}$`)
	for _, k := range kinds {
		listed[k.name] = true
		assert.Check(t, tags[k.tag] == "", "%s and %s both tag %s", tags[k.tag], k.name, k.tag)
		tags[k.tag] = k.name
		df, err := os.ReadFile(filepath.Join(dir, k.name, "Dockerfile"))
		if !assert.Check(t, err) {
			continue
		}
		// build-image.sh --base copies the LABEL lines alone.
		assert.Check(t, !regexp.MustCompile(`(?m)^LABEL .*\\$`).Match(df), "%s: a LABEL on more than one line", k.name)
		if k.root == "none" {
			continue
		}
		script := filepath.Join("..", "scripts", k.root+"-root.sh")
		if fi, err := os.Stat(script); assert.Check(t, err, "%s's root", k.name) {
			assert.Check(t, fi.Mode()&0o111 != 0, "%s is not executable", script)
		}
		for _, arch := range []string{"amd64", "arm64"} {
			lock, err := os.ReadFile(filepath.Join(dir, k.name, arch+".lock"))
			if !assert.Check(t, err) {
				continue
			}
			lines := strings.Split(strings.TrimSuffix(string(lock), "\n"), "\n")
			for _, l := range lines {
				assert.Check(t, pin.MatchString(l), "%s/%s.lock: %q", k.name, arch, l)
			}
		}
	}
	entries, err := os.ReadDir(dir)
	assert.NilError(t, err)
	for _, e := range entries {
		assert.Check(t, !e.IsDir() || listed[e.Name()], "isolation/container/images/%s is no kind of isolation/container/images/kinds", e.Name())
	}
}

// TestImageKinds: the image of every kind passes doctor (its hello
// judged through run's own argv), and its argv mounts /tmp noexec.
func TestImageKinds(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			needKind(t, k.name)
			d := tool(t, nil, "", "doctor", "--image", images[k.name])
			assert.Check(t, is.Equal(d.code, 0), d.stdout+d.stderr)
			assertTmpNoexec(t, images[k.name])
		})
	}
}

// TestImagesAreReproducible rebuilds the image of every kind under
// another tag, from the same lock, and expects the very same ID: the
// builder's timestamps and build container must not reach the image
// config, which holds the epoch, the sandbox user and the runner.
func TestImagesAreReproducible(t *testing.T) {
	needHeavy(t)
	root, err := filepath.Abs("..")
	assert.NilError(t, err)
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			if os.Getenv(imageEnv(k)) != "" {
				t.Skipf("%s names an image this suite did not build", imageEnv(k))
			}
			t.Parallel()
			repo, _, _ := strings.Cut(k.tag, ":")
			tag := repo + ":reproducibility-check"
			id, err := buildKind(root, k, tag, "--rebuild")
			assert.NilError(t, err)
			t.Cleanup(func() { _ = exec.Command("docker", "rmi", tag).Run() })
			assert.Equal(t, id, images[k.name])

			cfg, err := exec.Command("docker", "image", "inspect", "--format", "{{.Created}} {{.Config.User}} {{json .Config.Entrypoint}}", id).Output()
			assert.NilError(t, err)
			assert.Equal(t, strings.TrimSpace(string(cfg)), `1970-01-01T00:00:00Z 65534:65534 ["/runner"]`)
		})
	}
}
