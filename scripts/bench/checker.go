package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
)

// sumChecker grades judgeSource's output by testlib's convention: the
// sum of the input's numbers, whatever the expected output says.
const sumChecker = "import sys\nwant = sum(int(x) for x in open(sys.argv[1]).read().split())\n" +
	"got = open(sys.argv[2]).read().split()\nsys.exit(0 if got == [str(want)] else 1)\n"

// checkerCost times one request of tests tests on image (a Python image)
// graded two ways, in rotating order within each round: compared line by
// line with the expected outputs, and by a Python checker on the same
// image (the program's container, then the checker's). Each is checked:
// every test ok. A checker's cost per test is the paired difference over
// the tests.
func checkerCost(tool, image string, tests, n int) error {
	dir, err := os.MkdirTemp("", "checker-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	src, _, err := writeJudgeTests(dir, tests)
	if err != nil {
		return err
	}
	checker := filepath.Join(dir, "check.py")
	if err := os.WriteFile(checker, []byte(sumChecker), 0o644); err != nil {
		return err
	}
	// oks: each test's verdict, the request's, and a checker's pass.
	run := func(oks int, extra ...string) func() error {
		return func() error {
			args := append([]string{"run", "--image", image, "--timeout", "60s", "--file", src, "--tests", dir}, extra...)
			out, err := exec.Command(tool, args...).Output()
			return okVerdicts(out, err, oks)
		}
	}
	ways := map[string]func() error{"compared": run(tests + 1), "checked": run(tests+2, "--checker", checker, "--checker-image", image)}
	names := []string{"compared", "checked"}
	took, err := rotated(names, ways, n)
	if err != nil {
		return err
	}
	var ratio, perTest []float64
	for i := range n {
		ratio = append(ratio, took["checked"][i]/took["compared"][i])
		perTest = append(perTest, (took["checked"][i]-took["compared"][i])/float64(tests))
	}
	fmt.Printf("rounds: %d (rotating order), %d tests of one Python program, a Python checker\n", n, tests)
	for _, name := range names {
		fmt.Printf("%-9s median %.0f ms (min %.0f, max %.0f)\n", name, median(took[name]), slices.Min(took[name]), slices.Max(took[name]))
	}
	fmt.Printf("paired ratio checked / compared, median %.3f (min %.3f, max %.3f)\n", median(ratio), slices.Min(ratio), slices.Max(ratio))
	fmt.Printf("checker's cost per test, paired, median %.0f ms (min %.0f, max %.0f)\n", median(perTest), slices.Min(perTest), slices.Max(perTest))
	return nil
}
