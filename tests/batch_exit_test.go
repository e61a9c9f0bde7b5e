package tests

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
)

// holdingCLI is docker, but a `run` client, once docker run returned
// (its container removed by --rm), stays until the test releases its run
// id (DIR/release-ID), a minute at the most, and then says so
// (DIR/unreleased-ID). What it prints and its exit status are docker's.
func holdingCLI(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "docker-holding")
	script := `#!/bin/sh
case "$1" in run) ;; *) exec docker "$@";; esac
id=
for a do case "$a" in io.synapse-isolation.run-id=*) id=${a#*=};; esac; done
docker "$@"
rc=$?
n=0
while [ ! -e "` + dir + `/release-$id" ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n+1)); done
[ -e "` + dir + `/release-$id" ] || : >"` + dir + `/unreleased-$id"
exit $rc
`
	assert.NilError(t, fakedocker.WriteExecutable(path, []byte(script)))
	return path
}

// A warm line is answered when its container exits, not once its docker
// run client has ended: each client here is held until the test has read
// the line, so a line written at the client's end could not come first.
// Every container is gone when the batch exits.
func TestBatchLineAnsweredAtExit(t *testing.T) {
	needEngine(t)
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command(toolBin, "batch", "--cli", holdingCLI(t, dir), "--image", refImage, "--parallel", "1")
	stdin, err := cmd.StdinPipe()
	assert.NilError(t, err)
	out, err := cmd.StdoutPipe()
	assert.NilError(t, err)
	assert.NilError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	lines := bufio.NewReader(out)
	var runs []string
	for i := 0; i < 3; i++ {
		fmt.Fprintf(stdin, `{"id": %d, "source": "1+2"}`+"\n", i)
		l, err := lines.ReadString('\n')
		assert.NilError(t, err)
		var r batchResult
		assert.NilError(t, json.Unmarshal([]byte(l), &r), l)
		assert.Assert(t, is.Equal(r.Verdict, "ok"), l)
		_, err = os.Stat(filepath.Join(dir, "unreleased-"+r.RunID))
		assert.Assert(t, os.IsNotExist(err), "line %d came only once its client ended", i)
		assert.NilError(t, os.WriteFile(filepath.Join(dir, "release-"+r.RunID), nil, 0o600))
		runs = append(runs, r.RunID)
	}
	stdin.Close()
	assert.NilError(t, cmd.Wait())
	for _, runID := range runs {
		assertRunGone(t, runID)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "unreleased-*"))
	assert.Check(t, is.Len(left, 0), strings.Join(left, " "))
}
