package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// spin never ends: the run meets its deadline.
const spin = "while True:\n  pass"

// timeoutReturn measures how soon after its deadline a run that meets it
// returns, its container removed and confirmed gone: n runs of an endless
// program under --timeout d, each timed from the tool's start (so the
// figure includes the process's own start, which the deadline does not),
// each checked afterwards for no container of its run in any state.
func timeoutReturn(tool, image string, d time.Duration, n int) error {
	var late, cleanup []float64
	for i := 0; i < n; i++ {
		start := time.Now()
		out, err := exec.Command(tool, "run", "--image", image, "--timeout", d.String(), "--code", spin).Output()
		took := time.Since(start)
		var ee *exec.ExitError
		if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 124) {
			return fmt.Errorf("run %d: %v: %s", i, err, out)
		}
		var res struct {
			Verdict string `json:"verdict"`
			RunID   string `json:"run_id"`
			Timings struct {
				CleanupMS *float64 `json:"cleanup_ms"`
			} `json:"timings"`
		}
		if err := json.Unmarshal(out, &res); err != nil || res.Verdict != "timeout" {
			return fmt.Errorf("run %d: want a timeout verdict: %v: %s", i, err, out)
		}
		left, err := exec.Command("docker", "ps", "--all", "--quiet", "--filter", "label=io.synapse-isolation.run-id="+res.RunID).Output()
		if err != nil || strings.TrimSpace(string(left)) != "" {
			return fmt.Errorf("run %d: its container is still listed (%q, %v)", i, left, err)
		}
		late = append(late, float64((took-d).Microseconds())/1000)
		if res.Timings.CleanupMS != nil {
			cleanup = append(cleanup, *res.Timings.CleanupMS)
		}
	}
	slices.Sort(late)
	fmt.Printf("runs: %d of `run --timeout %s` on an endless program, each container confirmed gone\n", n, d)
	fmt.Printf("returned after the deadline  median %.1f ms  (min %.1f, p90 %.1f, max %.1f)\n",
		median(late), late[0], late[len(late)*9/10], late[len(late)-1])
	if len(cleanup) > 0 {
		fmt.Printf("cleanup_ms (its removal)     median %.1f ms\n", median(cleanup))
	}
	return nil
}
