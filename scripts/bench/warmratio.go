package main

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// warmRatio measures a warm batch line against a cold run of the same
// program, paired: one batch stays open; each of n rounds times a line
// (request written to result line read) and a `run --code '1+2'`, in
// alternating order, a second apart so the batch's next container is up
// and idle before either is timed. It prints the medians and the median
// of the paired ratios warm / cold.
func warmRatio(tool, image string, n int) error {
	s, err := startSession(tool, "--image", image, "--parallel", "1")
	if err != nil {
		return err
	}
	defer s.close()
	line := func(i int) (float64, error) {
		l, ms, err := s.ask([]byte(fmt.Sprintf(`{"id": %d, "source": "1+2"}`, i)))
		if err != nil || !strings.Contains(l, `"verdict":"ok"`) {
			return 0, fmt.Errorf("warm line: %v: %s", err, l)
		}
		return ms, nil
	}
	if _, err := line(-1); err != nil { // the first container's start is not a warm line
		return err
	}
	var warm, cold, ratios []float64
	for i := 0; i < n; i++ {
		var w, c float64
		for _, warmFirst := range []bool{i%2 == 0, i%2 != 0} {
			time.Sleep(time.Second)
			if warmFirst {
				w, err = line(i)
			} else {
				c, _, _, err = runTool(tool, image, false)
			}
			if err != nil {
				return err
			}
		}
		warm, cold, ratios = append(warm, w), append(cold, c), append(ratios, w/c)
	}
	fmt.Printf("warm batch line, median: %.1f ms (min %.1f, max %.1f)\n", median(warm), slices.Min(warm), slices.Max(warm))
	fmt.Printf("cold run, median: %.1f ms (min %.1f, max %.1f)\n", median(cold), slices.Min(cold), slices.Max(cold))
	fmt.Printf("paired ratio warm / cold, median: %.3f (min %.3f, max %.3f; %d pairs)\n", median(ratios), slices.Min(ratios), slices.Max(ratios), n)
	return nil
}
