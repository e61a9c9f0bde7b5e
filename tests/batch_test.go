package tests

import (
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/poll"
)

// batchResult is the part of a batch result line the suite reads.
type batchResult struct {
	runJSON
	ID   any `json:"id"`
	Line int `json:"line"`
}

func parseBatch(t *testing.T, out string) []batchResult {
	t.Helper()
	var rs []batchResult
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var r batchResult
		assert.NilError(t, json.Unmarshal([]byte(l), &r), l)
		rs = append(rs, r)
	}
	return rs
}

func TestBatchLive(t *testing.T) {
	needEngine(t)
	t.Parallel()
	var in strings.Builder
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&in, `{"id": %d, "source": "%d * 7"}`+"\n", i, i)
	}
	in.WriteString(`{"id": "bad", "source": "1 // 0"}` + "\n")
	r := tool(t, nil, in.String(), "batch", "--image", refImage, "--parallel", "2", "--ordered")
	assert.Check(t, is.Equal(r.code, 1), r.stderr)
	rs := parseBatch(t, r.stdout)
	assert.Assert(t, is.Len(rs, 7))
	seen := map[string]bool{}
	for i, res := range rs[:6] {
		assert.Check(t, is.Equal(res.Verdict, "ok"), "%+v", res)
		assert.Check(t, is.Equal(string(res.Result), fmt.Sprint((i+1)*7)))
		assert.Check(t, !seen[res.RunID], "each request gets its own container")
		seen[res.RunID] = true
		assertRunGone(t, res.RunID)
	}
	assert.Check(t, is.Equal(rs[6].Verdict, "program_error"))
	assert.Check(t, is.Contains(r.stderr, "batch: 7 results, ok 6, program_error 1"))
}

// startBatch starts a batch that runs n endless loops and waits until n
// containers of it run.
func startBatch(t *testing.T, n int, env []string, flags ...string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(toolBin, append([]string{"batch", "--image", refImage, "--timeout", "60s", "--parallel", fmt.Sprint(n + 1)}, flags...)...)
	cmd.Env = append(cmd.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	assert.NilError(t, err)
	var stdout strings.Builder
	cmd.Stdout = &stdout
	assert.NilError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	for i := 0; i < n; i++ {
		fmt.Fprintf(stdin, `{"id": %d, "source": "while True:\n  pass"}`+"\n", i)
	}
	// stdin stays open: the batch is still reading when the signal comes.
	t.Cleanup(func() { stdin.Close() })
	pid := cmd.Process.Pid
	poll.WaitOn(t, func(poll.LogT) poll.Result {
		out, _ := exec.Command("docker", "ps", "--quiet", "--filter", "status=running",
			"--filter", fmt.Sprintf("label=io.synapse-isolation.owner=%s:%d:%s", bootID(t), pid, startTicks(t, pid))).Output()
		if len(strings.Fields(string(out))) >= n+1 {
			return poll.Success()
		}
		return poll.Continue("%d of %d containers (and a ready one) running", len(strings.Fields(string(out))), n+1)
	}, poll.WithTimeout(60*time.Second), poll.WithDelay(100*time.Millisecond))
	return cmd, &stdout
}

func bootID(t *testing.T) string {
	b, err := exec.Command("cat", "/proc/sys/kernel/random/boot_id").Output()
	assert.NilError(t, err)
	return strings.TrimSpace(string(b))
}

func startTicks(t *testing.T, pid int) string {
	b, err := exec.Command("cat", fmt.Sprintf("/proc/%d/stat", pid)).Output()
	assert.NilError(t, err)
	s := string(b)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])[19]
}

func ownedBy(t *testing.T, label string) []string {
	out, err := exec.Command("docker", "ps", "--all", "--quiet", "--filter", "label=io.synapse-isolation.owner="+label).Output()
	assert.NilError(t, err)
	return strings.Fields(string(out))
}

// TestBatchInterrupted: SIGINT stops the reading, removes every container,
// ready or running, prints what finished, exits 130.
func TestBatchInterrupted(t *testing.T) {
	needEngine(t)
	cmd, stdout := startBatch(t, 2, nil)
	owner := fmt.Sprintf("%s:%d:%s", bootID(t), cmd.Process.Pid, startTicks(t, cmd.Process.Pid))
	assert.NilError(t, cmd.Process.Signal(syscall.SIGINT))
	err := cmd.Wait()
	var ee *exec.ExitError
	assert.Assert(t, errors.As(err, &ee), "%v", err)
	assert.Check(t, is.Equal(ee.ExitCode(), 130))
	rs := parseBatch(t, stdout.String())
	assert.Check(t, is.Len(rs, 2))
	for _, r := range rs {
		assert.Check(t, is.Equal(r.Verdict, "interrupted"))
	}
	assert.Check(t, is.Len(ownedBy(t, owner), 0), "every container of the batch is gone")
}

// TestBatchKilledThenGC: after a SIGKILL of the batch and its reapers, a
// plain gc removes
// everything it left at once, running and ready containers alike.
func TestBatchKilledThenGC(t *testing.T) {
	needEngine(t)
	holdGC(t)
	cmd, _ := startBatch(t, 2, nil)
	owner := fmt.Sprintf("%s:%d:%s", bootID(t), cmd.Process.Pid, startTicks(t, cmd.Process.Pid))
	killWithReapers(t, cmd)
	// The two running loops stay until gc removes them; the ready
	// container may end on its own (its stdin closed with the batch) before
	// the listing or before gc, so gc removes two or three.
	out, err := exec.Command("docker", "ps", "--all", "--format", "{{.Names}}", "--filter", "label=io.synapse-isolation.owner="+owner).Output()
	assert.NilError(t, err)
	left := strings.Fields(string(out))
	assert.Check(t, len(left) >= 2, "the killed batch left its containers: %v", left)
	r := tool(t, nil, "", "gc")
	assert.Check(t, is.Equal(r.code, 0), r.stderr)
	// Only its own lines count: another suite's killed runs on this
	// engine are gc's to remove too.
	removed := 0
	for _, line := range strings.Split(r.stdout, "\n") {
		for _, name := range left {
			if strings.HasPrefix(line, "removed "+name+" (run ") && strings.Contains(line, ", owner gone, ") {
				removed++
			}
		}
	}
	assert.Check(t, removed >= 2, "removed %d of %d: %s", removed, len(left), r.stdout)
	assert.Check(t, is.Len(ownedBy(t, owner), 0))
}

// TestBatchTwoEngines: repeated --context spreads the requests over both
// engines, each checked first.
func TestBatchTwoEngines(t *testing.T) {
	needEngine(t)
	e := needSecondEngine(t)
	t.Parallel()
	since := time.Now().Add(-time.Second).Unix()
	var in strings.Builder
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&in, `{"id": %d, "source": "%d"}`+"\n", i, i)
	}
	r := tool(t, e.env(), in.String(), "batch", "--image", refImage, "--parallel", "4", "--context", "default", "--context", e.context)
	assert.Check(t, is.Equal(r.code, 0), r.stderr)
	rs := parseBatch(t, r.stdout)
	assert.Assert(t, is.Len(rs, 8))
	onSecond := 0
	for _, res := range rs {
		out, err := e.docker("events", "--since", fmt.Sprint(since), "--until", fmt.Sprint(time.Now().Unix()+1),
			"--filter", "label=io.synapse-isolation.run-id="+res.RunID, "--filter", "event=create", "--format", "{{.ID}}")
		assert.NilError(t, err)
		if strings.TrimSpace(string(out)) != "" {
			onSecond++
		}
		assertRunGone(t, res.RunID)
		assert.Check(t, is.Len(labelled(t, e, "="+res.RunID), 0))
	}
	assert.Check(t, onSecond >= 2 && onSecond <= 6, "%d of 8 ran on the second engine", onSecond)

	// An engine without the image is refused before anything starts.
	r = tool(t, e.env(), "", "batch", "--image", "sha256:"+strings.Repeat("0", 64), "--context", e.context)
	assert.Check(t, is.Equal(r.code, 125), r.stderr)
	assert.Check(t, is.Contains(r.stderr, "is not present (nothing is pulled)"))
}
