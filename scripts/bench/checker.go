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

// sumInteractor grades judgeSource interactively: it writes the test's
// input and closes its stdout, as a pipe's writer would, then reads the
// program's answer.
const sumInteractor = "import os, sys\ndata = open(sys.argv[1]).read()\nos.write(1, data.encode())\nos.close(1)\n" +
	"want = sum(int(x) for x in data.split())\ngot = sys.stdin.read().split()\nsys.exit(0 if got == [str(want)] else 1)\n"

// checkerCost times one request of tests tests on image (a Python image)
// graded three ways, in rotating order within each round: compared line
// by line with the expected outputs, by a Python checker on the same
// image (the program's container, then the checker's), and by a Python
// interactor (both containers at once, the host relaying). Each is
// checked: every test ok. A checker's or an interactor's cost per test is
// the paired difference over the tests.
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
	interactor := filepath.Join(dir, "interact.py")
	if err := os.WriteFile(interactor, []byte(sumInteractor), 0o644); err != nil {
		return err
	}
	ways := map[string]func() error{"compared": run(tests + 1), "checked": run(tests+2, "--checker", checker, "--checker-image", image),
		"interactive": run(tests+2, "--interactor", interactor, "--interactor-image", image)}
	names := []string{"compared", "checked", "interactive"}
	took, err := rotated(names, ways, n)
	if err != nil {
		return err
	}
	fmt.Printf("rounds: %d (rotating order), %d tests of one Python program, a Python checker and interactor\n", n, tests)
	for _, name := range names {
		fmt.Printf("%-11s median %.0f ms (min %.0f, max %.0f)\n", name, median(took[name]), slices.Min(took[name]), slices.Max(took[name]))
	}
	for _, name := range names[1:] {
		var ratio, perTest []float64
		for i := range n {
			ratio = append(ratio, took[name][i]/took["compared"][i])
			perTest = append(perTest, (took[name][i]-took["compared"][i])/float64(tests))
		}
		fmt.Printf("paired ratio %s / compared, median %.3f (min %.3f, max %.3f)\n", name, median(ratio), slices.Min(ratio), slices.Max(ratio))
		fmt.Printf("%s: paired difference per test, median %.0f ms (min %.0f, max %.0f)\n", name, median(perTest), slices.Min(perTest), slices.Max(perTest))
	}
	return nil
}
