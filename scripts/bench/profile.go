package main

import (
	"fmt"
	"os"
	"slices"
	"strings"
)

// profileCost measures what the policy's seccomp profile costs a container:
// paired bare `docker run`s of the tool's argv as rendered and of the same
// argv without its seccomp= option (the engine's default profile), in
// alternating order.
func profileCost(tool, image string, n int) error {
	var with, without, ratios []float64
	for i := 0; i < n; i++ {
		var w, wo float64
		for _, own := range []bool{i%2 == 0, i%2 != 0} {
			ms, err := bareProfile(tool, image, i, own)
			if err != nil {
				return err
			}
			if own {
				w = ms
			} else {
				wo = ms
			}
		}
		with, without, ratios = append(with, w), append(without, wo), append(ratios, w/wo)
	}
	fmt.Printf("pairs: %d (alternating order), bare docker run of the tool's argv, request %s\n", n, request)
	fmt.Printf("the policy's profile     median %.1f ms  (min %.1f, max %.1f)\n", median(with), slices.Min(with), slices.Max(with))
	fmt.Printf("engine default profile   median %.1f ms  (min %.1f, max %.1f)\n", median(without), slices.Min(without), slices.Max(without))
	fmt.Printf("paired ratio own/default median %.3f  (min %.3f, max %.3f)\n", median(ratios), slices.Min(ratios), slices.Max(ratios))
	return nil
}

func bareProfile(tool, image string, i int, own bool) (float64, error) {
	argv, err := toolArgv(tool, image, fmt.Sprintf("synapse-iso-bench-%d-%d-%t", os.Getpid(), i, own))
	if err != nil {
		return 0, err
	}
	if !own {
		j := slices.IndexFunc(argv, func(a string) bool { return strings.HasPrefix(a, "seccomp=") })
		if j < 1 || argv[j-1] != "--security-opt" {
			return 0, fmt.Errorf("no seccomp= option in %q", argv)
		}
		argv = slices.Delete(argv, j-1, j+1)
	}
	ms, _, err := timeBare(argv)
	return ms, err
}
