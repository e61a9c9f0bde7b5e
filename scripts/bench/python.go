package main

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// pythonCost times `run -- python3 -` of print(1+2) on the Python image
// against `run` of 1+2 on the Starlark image, in alternating pairs.
func pythonCost(tool, starlark, python string, n int) error {
	timed := func(args ...string) (float64, error) {
		start := time.Now()
		out, err := exec.Command(tool, args...).Output()
		ms := float64(time.Since(start).Microseconds()) / 1000
		if err != nil || !strings.Contains(string(out), `"verdict":"ok"`) {
			return 0, fmt.Errorf("%v: %v: %s", args, err, out)
		}
		return ms, nil
	}
	pyArgs := []string{"run", "--image", python, "--code", "print(1+2)", "--", "python3", "-"}
	slArgs := []string{"run", "--image", starlark, "--code", "1+2"}
	for i := 0; i < 2; i++ { // warm caches; not counted
		if _, err := timed(pyArgs...); err != nil {
			return err
		}
		if _, err := timed(slArgs...); err != nil {
			return err
		}
	}
	var pyT, slT, ratios []float64
	for i := 0; i < n; i++ {
		var p, s float64
		for _, pyFirst := range []bool{i%2 == 0, i%2 != 0} {
			var err error
			if pyFirst {
				p, err = timed(pyArgs...)
			} else {
				s, err = timed(slArgs...)
			}
			if err != nil {
				return err
			}
		}
		pyT, slT, ratios = append(pyT, p), append(slT, s), append(ratios, p/s)
	}
	fmt.Printf("pairs: %d (alternating order)\n", n)
	fmt.Printf("python print(1+2)      median %.1f ms  (min %.1f, max %.1f)\n", median(pyT), slices.Min(pyT), slices.Max(pyT))
	fmt.Printf("starlark 1+2           median %.1f ms  (min %.1f, max %.1f)\n", median(slT), slices.Min(slT), slices.Max(slT))
	fmt.Printf("paired ratio py/star   median %.3f  (min %.3f, max %.3f)\n", median(ratios), slices.Min(ratios), slices.Max(ratios))
	return nil
}
