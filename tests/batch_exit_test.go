package tests

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// A warm line is answered when its container exits, before --rm removes
// it: the engine's destroy event of a line's container comes after the
// line was read, for at least one of five lines (the removal takes tens
// of ms here; a line written once docker run returned, after the
// removal, could never come first). Every container is gone when the
// batch exits.
func TestBatchLineAnsweredAtExit(t *testing.T) {
	needEngine(t)
	t.Parallel()
	since := time.Now()
	cmd := exec.Command(toolBin, "batch", "--image", refImage, "--parallel", "1")
	stdin, err := cmd.StdinPipe()
	assert.NilError(t, err)
	out, err := cmd.StdoutPipe()
	assert.NilError(t, err)
	assert.NilError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	lines := bufio.NewReader(out)
	read := map[string]time.Time{}
	for i := 0; i < 5; i++ {
		time.Sleep(time.Second) // the next container is up and idle
		fmt.Fprintf(stdin, `{"id": %d, "source": "1+2"}`+"\n", i)
		l, err := lines.ReadString('\n')
		at := time.Now()
		assert.NilError(t, err)
		var r batchResult
		assert.NilError(t, json.Unmarshal([]byte(l), &r), l)
		assert.Assert(t, is.Equal(r.Verdict, "ok"), l)
		read[r.RunID] = at
	}
	stdin.Close()
	assert.NilError(t, cmd.Wait())
	first := 0
	for runID, at := range read {
		assertRunGone(t, runID)
		ev, err := exec.Command("docker", "events", "--since", fmt.Sprint(since.Unix()), "--until", fmt.Sprint(time.Now().Unix()+1),
			"--filter", "type=container", "--filter", "event=destroy", "--filter", "label=io.synapse-isolation.run-id="+runID,
			"--format", "{{.TimeNano}}").Output()
		assert.NilError(t, err)
		nano, err := strconv.ParseInt(strings.TrimSpace(string(ev)), 10, 64)
		assert.NilError(t, err, "the destroy event of run %s: %q", runID, ev)
		t.Logf("run %s: line read %s before its container's destroy event", runID, time.Unix(0, nano).Sub(at))
		if at.Before(time.Unix(0, nano)) {
			first++
		}
	}
	assert.Check(t, first >= 1, "no line of 5 was read before its container was removed")
}
