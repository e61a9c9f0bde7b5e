package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// scienceImports is what a numeric program loads first.
const scienceImports = "import numpy, scipy.linalg, pandas, matplotlib.pyplot"

// importCost times a cold run that imports the science stack against a
// cold run of print(1) on the same image, in alternating pairs: the
// imports' cost to a run that starts its own interpreter, from outside
// (whole commands) and as the runner's exec_ms.
func importCost(tool, image string, n int) error {
	timed := func(src string) (wall, execMS float64, err error) {
		start := time.Now()
		out, err := exec.Command(tool, "run", "--image", image, "--timeout", "60s", "--code", src).Output()
		wall = float64(time.Since(start).Microseconds()) / 1000
		var r struct {
			Verdict string
			Timings struct {
				ExecMS *float64 `json:"exec_ms"`
			}
		}
		if jerr := json.Unmarshal(out, &r); err != nil || jerr != nil || r.Verdict != "ok" || r.Timings.ExecMS == nil {
			return 0, 0, fmt.Errorf("run %q: %v: %s", src, err, out)
		}
		return wall, *r.Timings.ExecMS, nil
	}
	for _, src := range []string{scienceImports, "print(1)"} { // warm caches; not counted
		if _, _, err := timed(src); err != nil {
			return err
		}
	}
	var impW, oneW, impE, oneE, ratios []float64
	for i := 0; i < n; i++ {
		order := []string{scienceImports, "print(1)"}
		if i%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		got := map[string][2]float64{}
		for _, src := range order {
			w, e, err := timed(src)
			if err != nil {
				return err
			}
			got[src] = [2]float64{w, e}
		}
		imp, one := got[scienceImports], got["print(1)"]
		impW, oneW, impE, oneE = append(impW, imp[0]), append(oneW, one[0]), append(impE, imp[1]), append(oneE, one[1])
		ratios = append(ratios, imp[0]/one[0])
	}
	fmt.Printf("pairs: %d (alternating order)\n", n)
	fmt.Printf("imports   median %.1f ms (min %.1f, max %.1f), exec_ms median %.0f\n", median(impW), slices.Min(impW), slices.Max(impW), median(impE))
	fmt.Printf("print(1)  median %.1f ms (min %.1f, max %.1f), exec_ms median %.0f\n", median(oneW), slices.Min(oneW), slices.Max(oneW), median(oneE))
	fmt.Printf("paired ratio imports/print(1), median %.3f (min %.3f, max %.3f)\n", median(ratios), slices.Min(ratios), slices.Max(ratios))
	return nil
}

// warmNumpy is the numeric line whose warm latency is held against
// print(1)'s by default (-line).
const warmNumpy = "import numpy as np; print(int(np.arange(10).sum()))"

// preloadCost measures, in one batch on -image with --parallel 1, the
// latency of a warm line that imports numpy against a warm print(1) line,
// from outside the tool (request written to result line read), in
// alternating pairs, each request once its container has had settle to
// start and preload.
func preloadCost(tool, image, numeric string, n int, settle time.Duration) error {
	s, err := startSession(tool, "--image", image, "--parallel", "1", "--timeout", "60s")
	if err != nil {
		return err
	}
	defer s.close()
	ask := func(id int, src string) (float64, error) {
		time.Sleep(settle)
		line, _ := json.Marshal(map[string]any{"id": id, "source": src})
		res, ms, err := s.ask(line)
		if err != nil || !strings.Contains(res, `"verdict":"ok"`) {
			return 0, fmt.Errorf("%q: %v: %s", src, err, res)
		}
		return ms, nil
	}
	if _, err := ask(-1, "print(1)"); err != nil { // the first container; not counted
		return err
	}
	var np, one, ratios []float64
	for i := 0; i < n; i++ {
		order := []string{numeric, "print(1)"}
		if i%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		got := map[string]float64{}
		for j, src := range order {
			ms, err := ask(2*i+j, src)
			if err != nil {
				return err
			}
			got[src] = ms
		}
		np, one, ratios = append(np, got[numeric]), append(one, got["print(1)"]), append(ratios, got[numeric]/got["print(1)"])
	}
	fmt.Printf("pairs: %d (alternating order, %s between requests)\n", n, settle)
	fmt.Printf("line: %s\n", numeric)
	fmt.Printf("warm line        median %.1f ms (min %.1f, max %.1f)\n", median(np), slices.Min(np), slices.Max(np))
	fmt.Printf("warm print(1)    median %.1f ms (min %.1f, max %.1f)\n", median(one), slices.Min(one), slices.Max(one))
	fmt.Printf("ratio of medians %.3f; paired ratio median %.3f (min %.3f, max %.3f)\n",
		median(np)/median(one), median(ratios), slices.Min(ratios), slices.Max(ratios))
	return nil
}
