package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// stdinBytes is the input of the benchmark's runs with stdin: 60 KiB,
// within the request's 64 KiB beside a short source.
const stdinBytes = 60 << 10

// stdinCost times `run --stdin FILE` of a program that reads 60 KiB of
// input against the same run without --stdin, in alternating pairs, and
// the runner's own exec_ms of each: what input costs a run. On a Python
// image (python != "") the program is Python's, else Starlark's.
func stdinCost(tool, image, python string, n int) error {
	dir, err := os.MkdirTemp("", "bench-stdin")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "60k.in")
	if err := os.WriteFile(in, []byte(strings.Repeat("0123456789abcdef", stdinBytes/16)), 0o644); err != nil {
		return err
	}
	base := []string{"run", "--image", image, "--code", "len(stdin)"}
	if python != "" {
		base = []string{"run", "--image", python, "--code", "import sys\nprint(len(sys.stdin.read()))", "--", "python3", "-"}
	}
	with := append([]string{base[0], "--stdin", in}, base[1:]...)
	timed := func(args []string) (float64, float64, error) { return timedRun(tool, args) }
	for i := 0; i < 2; i++ { // warm caches; not counted
		for _, args := range [][]string{with, base} {
			if _, _, err := timed(args); err != nil {
				return err
			}
		}
	}
	var withT, withoutT, ratios, withExec, withoutExec []float64
	for i := 0; i < n; i++ {
		var w, wo, we, woe float64
		for _, withFirst := range []bool{i%2 == 0, i%2 != 0} {
			var err error
			if withFirst {
				w, we, err = timed(with)
			} else {
				wo, woe, err = timed(base)
			}
			if err != nil {
				return err
			}
		}
		withT, withoutT, ratios = append(withT, w), append(withoutT, wo), append(ratios, w/wo)
		withExec, withoutExec = append(withExec, we), append(withoutExec, woe)
	}
	fmt.Printf("pairs: %d (alternating order), %d bytes of stdin\n", n, stdinBytes)
	fmt.Printf("run --stdin 60 KiB       median %.1f ms  (min %.1f, max %.1f); exec_ms median %.1f\n",
		median(withT), slices.Min(withT), slices.Max(withT), median(withExec))
	fmt.Printf("run without --stdin      median %.1f ms  (min %.1f, max %.1f); exec_ms median %.1f\n",
		median(withoutT), slices.Min(withoutT), slices.Max(withoutT), median(withoutExec))
	fmt.Printf("paired ratio with/without median %.3f  (min %.3f, max %.3f)\n", median(ratios), slices.Min(ratios), slices.Max(ratios))
	return nil
}

// timedRun runs the tool with args and returns its wall time and the
// result's exec_ms, both in ms; an error unless the verdict is ok.
func timedRun(tool string, args []string) (ms, execMS float64, err error) {
	start := time.Now()
	out, err := exec.Command(tool, args...).Output()
	ms = float64(time.Since(start).Microseconds()) / 1000
	var res struct {
		Verdict string `json:"verdict"`
		Timings struct {
			ExecMS *float64 `json:"exec_ms"`
		} `json:"timings"`
	}
	if err != nil || json.Unmarshal(out, &res) != nil || res.Verdict != "ok" || res.Timings.ExecMS == nil {
		return 0, 0, fmt.Errorf("%v: %v: %s", args, err, out)
	}
	return ms, *res.Timings.ExecMS, nil
}
