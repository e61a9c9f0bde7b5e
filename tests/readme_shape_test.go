package tests

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestReadmeSetUp holds the two set-up commands near the top: the first
// runs 1+2 on the reference image as shown (its build step is how the
// suite builds the tool, and build-image.sh how it builds the image), the
// second is what CI runs.
func TestReadmeSetUp(t *testing.T) {
	needEngine(t)
	readme := readmeText(t)
	top := strings.Join(strings.SplitN(readme, "\n", 41)[:40], "\n") + "\n"
	const build = "go build -o synapse-isolation . && "
	first := readmeBlock(t, "sh", "go build ")
	assert.Assert(t, is.Contains(top, "```sh\n"+first+"```"), "the build command is not in the first 40 lines")
	assert.Assert(t, strings.HasPrefix(first, build), first)
	dir := workdir(t)
	fakeBuildImage(t, dir)
	cmd := exec.Command("sh", "-c", strings.TrimPrefix(first, build))
	cmd.Dir = dir
	out, err := cmd.Output()
	assert.NilError(t, err)
	var res runJSON
	assert.NilError(t, json.Unmarshal(out, &res), string(out))
	assert.Check(t, is.Equal(res.Verdict, "ok"))
	assert.Check(t, is.Equal(string(res.Result), "3"))
	assert.Check(t, res.Sandboxed)

	second := readmeBlock(t, "sh", "scripts/")
	assert.Check(t, is.Contains(top, "```sh\n"+second+"```"), "the test command is not in the first 40 lines")
	heavy := "`" + strings.TrimSpace(second) + " --heavy`"
	assert.Check(t, is.Contains(top, heavy), "the README does not name the second test command, %s", heavy)
	ci, err := os.ReadFile(filepath.Join("..", ".ci", "run"))
	assert.NilError(t, err)
	assert.Check(t, is.Contains(string(ci), "\n"+second), ".ci/run does not run the README's test command")
	assert.Check(t, is.Contains(string(ci), "\nexec "+strings.Trim(heavy, "`")+"\n"), ".ci/run does not then run the second test command")
}

// TestReadmeShape holds the README to a newcomer's guide: at most 250
// lines, and each generated section once, between its markers.
func TestReadmeShape(t *testing.T) {
	readme := readmeText(t)
	assert.Check(t, strings.Count(readme, "\n") <= 250, "README.md has %d lines, more than 250", strings.Count(readme, "\n"))
	for _, section := range []string{"verdicts", "boundaries"} {
		open, end := "\n<!-- "+section+" -->\n", "\n<!-- /"+section+" -->\n"
		assert.Check(t, is.Equal(strings.Count(readme, open), 1), section)
		assert.Check(t, is.Equal(strings.Count(readme, end), 1), section)
		assert.Check(t, strings.Index(readme, open) < strings.Index(readme, end), section)
	}
}

// TestTestShKeepsItsStatus runs scripts/test.sh's EXIT trap as the script
// sets it, under set -eu with no job left: the script's status must be
// its own, 0 when it passed, not the trap's.
func TestTestShKeepsItsStatus(t *testing.T) {
	script, err := os.ReadFile(filepath.Join("..", "scripts", "test.sh"))
	assert.NilError(t, err)
	var trap string
	for _, line := range strings.Split(string(script), "\n") {
		if strings.HasPrefix(line, "trap ") && strings.HasSuffix(line, " EXIT") {
			trap = line
		}
	}
	assert.Assert(t, trap != "", "scripts/test.sh sets no EXIT trap")
	for _, status := range []int{0, 3} {
		cmd := exec.Command("sh", "-c", fmt.Sprintf("set -eu\nahead=$(mktemp -d)\n%s\nexit %d", trap, status))
		err := cmd.Run()
		got := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			got = exit.ExitCode()
		} else {
			assert.NilError(t, err)
		}
		assert.Check(t, is.Equal(got, status), "a script that exits %d under %q", status, trap)
	}
}
