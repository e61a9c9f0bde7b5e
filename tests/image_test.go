package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// TestImageIsReproducible rebuilds the reference image under another tag
// and expects the very same ID: the builder's timestamps and build
// container must not reach the image config.
func TestImageIsReproducible(t *testing.T) {
	needHeavy(t)
	if os.Getenv("SYNAPSE_TEST_IMAGE") != "" {
		t.Skip("SYNAPSE_TEST_IMAGE names an image this suite did not build")
	}
	const tag = "synapse-runtime:reproducibility-check"
	cmd := exec.Command(filepath.Join("..", "scripts", "build-image.sh"), "--rebuild")
	cmd.Env = append(os.Environ(), "SYNAPSE_IMAGE_TAG="+tag)
	out, err := cmd.Output()
	assert.NilError(t, err)
	t.Cleanup(func() { _ = exec.Command("docker", "rmi", tag).Run() })
	assert.Equal(t, strings.TrimSpace(string(out)), refImage)

	cfg, err := exec.Command("docker", "image", "inspect", "--format", "{{.Created}} {{.Config.User}} {{json .Config.Entrypoint}}", refImage).Output()
	assert.NilError(t, err)
	assert.Equal(t, strings.TrimSpace(string(cfg)), `1970-01-01T00:00:00Z 65534:65534 ["/runner"]`)
}
