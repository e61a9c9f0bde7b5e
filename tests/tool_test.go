package tests

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// toolResult is one invocation of the real binary.
type toolResult struct {
	code   int
	stdout string
	stderr string
	res    runJSON
}

// runJSON is the part of run's JSON output the suite reads.
type runJSON struct {
	Verdict         string          `json:"verdict"`
	ExitCode        int             `json:"exit_code"`
	Result          json.RawMessage `json:"result"`
	Output          string          `json:"output"`
	OutputTruncated bool            `json:"output_truncated"`
	OutputBytes     int64           `json:"output_bytes"`
	OutputReplaced  int64           `json:"output_replaced_bytes"`
	Stderr          string          `json:"stderr"`
	Container       string          `json:"container"`
	RunID           string          `json:"run_id"`
	Sandboxed       bool            `json:"sandboxed"`
	ContainerExit   *int            `json:"container_exit"`
	Timings         struct {
		StartMS   *int64 `json:"start_ms"`
		ExecMS    *int64 `json:"exec_ms"`
		CleanupMS *int64 `json:"cleanup_ms"`
	} `json:"timings"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
	Usage struct {
		CPUMS           *int64 `json:"cpu_ms"`
		MemoryPeakBytes *int64 `json:"memory_peak_bytes"`
	} `json:"usage"`
}

// tool runs synapse-isolation with extra environment and stdin.
func tool(t testing.TB, env []string, stdin string, args ...string) toolResult {
	t.Helper()
	cmd := exec.Command(toolBin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	r := runTool(t, cmd)
	if strings.HasPrefix(r.stdout, "{") && strings.Count(r.stdout, "\n") == 1 { // one result object (batch prints several)
		assert.NilError(t, json.Unmarshal([]byte(r.stdout), &r.res), r.stdout)
	}
	return r
}

// runTool runs cmd, the tool, to its end: its output and exit status.
func runTool(t testing.TB, cmd *exec.Cmd) toolResult {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := toolResult{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else {
		assert.NilError(t, err)
	}
	return r
}

// run is `synapse-isolation run` on the reference image.
func run(t *testing.T, src string, flags ...string) toolResult {
	t.Helper()
	r := tool(t, nil, "", append([]string{"run", "--image", refImage, "--code", src}, flags...)...)
	if r.res.Container != "" {
		assertGone(t, r.res.Container)
		assertRunGone(t, r.res.RunID)
	}
	return r
}

// probe runs one probe check through the runner's --exec mode and returns
// the probe's report.
func probe(t *testing.T, check string, flags ...string) map[string]any {
	t.Helper()
	args := append([]string{"run", "--image", probeImage, "--code", check}, flags...)
	r := tool(t, nil, "", append(args, "--", "/probe")...)
	assert.Equal(t, r.code, 0, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	assertGone(t, r.res.Container)
	assertRunGone(t, r.res.RunID)
	var rep map[string]any
	assert.NilError(t, json.Unmarshal([]byte(r.res.Output), &rep), r.res.Output)
	t.Logf("probe %s: %s", check, strings.TrimSpace(r.res.Output))
	return rep
}

// assertGone checks that the engine lists no container by the name, in
// any state.
func assertGone(t *testing.T, name string) {
	t.Helper()
	assert.Assert(t, name != "", "no container name to check")
	assertNoneListed(t, "name=^/?"+name+"$")
}

// assertRunGone checks that the engine lists no container with the run's
// id label, in any state.
func assertRunGone(t *testing.T, runID string) {
	t.Helper()
	assert.Assert(t, runID != "", "no run id to check")
	assertNoneListed(t, "label=io.synapse-isolation.run-id="+runID)
}

func assertNoneListed(t *testing.T, filter string) {
	t.Helper()
	out, err := exec.Command("docker", "ps", "--all", "--quiet", "--filter", filter).CombinedOutput()
	assert.NilError(t, err, string(out))
	assert.Equal(t, strings.TrimSpace(string(out)), "", "container left behind (%s)", filter)
}

// ms prints a timing in milliseconds, or "null" when it was not reported.
func ms(v *int64) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprintf("%d ms", *v)
}
