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

// judgeSource reads two numbers and prints their sum: one test's work is
// the process's start, not the program.
const judgeSource = "a, b = map(int, input().split())\nprint(a + b)\n"

// judgeCost times three ways to judge one program on tests tests on
// image (a Python image), in rotating order within each round: one
// request with every test (run --tests), a run per test (as a Makefile
// recipe does), and one batch of a line per test (its default
// parallelism, the engine's CPUs). Each is checked: every test ok.
func judgeCost(tool, image string, tests, n int) error {
	dir, err := os.MkdirTemp("", "judge-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	src, lines, err := writeJudgeTests(dir, tests)
	if err != nil {
		return err
	}
	ways := map[string]func() error{
		"one request": func() error {
			out, err := exec.Command(tool, "run", "--image", image, "--timeout", "60s", "--file", src, "--tests", dir).Output()
			return okVerdicts(out, err, tests+1) // each test, and the request
		},
		"a run per test": func() error {
			for i := 1; i <= tests; i++ {
				out, err := exec.Command(tool, "run", "--image", image, "--file", src, "--stdin", filepath.Join(dir, fmt.Sprint(i)+".in")).Output()
				if err := okVerdicts(out, err, 1); err != nil {
					return err
				}
			}
			return nil
		},
		"a batch line per test": func() error {
			cmd := exec.Command(tool, "batch", "--image", image)
			cmd.Stdin = strings.NewReader(lines)
			out, err := cmd.Output()
			return okVerdicts(out, err, tests)
		},
	}
	names := []string{"one request", "a run per test", "a batch line per test"}
	took, err := rotated(names, ways, n)
	if err != nil {
		return err
	}
	var perRun, perBatch []float64
	for i := range n {
		perRun = append(perRun, took["one request"][i]/took["a run per test"][i])
		perBatch = append(perBatch, took["one request"][i]/took["a batch line per test"][i])
	}
	fmt.Printf("rounds: %d (rotating order), %d tests of one Python program\n", n, tests)
	for _, name := range names {
		fmt.Printf("%-22s median %.0f ms (min %.0f, max %.0f)\n", name, median(took[name]), slices.Min(took[name]), slices.Max(took[name]))
	}
	fmt.Printf("paired ratio one request / a run per test, median %.3f (min %.3f, max %.3f)\n", median(perRun), slices.Min(perRun), slices.Max(perRun))
	fmt.Printf("paired ratio one request / a batch line per test, median %.3f (min %.3f, max %.3f)\n", median(perBatch), slices.Min(perBatch), slices.Max(perBatch))
	return nil
}

// writeJudgeTests writes the judged program and its tests (N.in, N.out)
// into dir, and returns the program's path and a batch line per test.
func writeJudgeTests(dir string, tests int) (src, lines string, err error) {
	src = filepath.Join(dir, "sum.py")
	if err := os.WriteFile(src, []byte(judgeSource), 0o644); err != nil {
		return "", "", err
	}
	var b strings.Builder
	for i := 1; i <= tests; i++ {
		in := fmt.Sprintf("%d %d\n", i, i)
		for name, data := range map[string]string{".in": in, ".out": fmt.Sprintf("%d\n", 2*i)} {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprint(i)+name), []byte(data), 0o644); err != nil {
				return "", "", err
			}
		}
		line, _ := json.Marshal(map[string]string{"id": fmt.Sprint(i), "source": judgeSource, "stdin": in})
		b.Write(append(line, '\n'))
	}
	return src, b.String(), nil
}

// rotated runs each way once to warm caches (not counted), then n times,
// in rounds whose first way rotates, and returns each way's times in ms
// by round: round i of every way is measured side by side, so their
// ratios pair.
func rotated(names []string, ways map[string]func() error, n int) (map[string][]float64, error) {
	for _, name := range names {
		if err := ways[name](); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	took := map[string][]float64{}
	for i := range n {
		for k := range names {
			name := names[(i+k)%len(names)] // each way goes first in turn
			start := time.Now()
			if err := ways[name](); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			took[name] = append(took[name], float64(time.Since(start).Microseconds())/1000)
		}
	}
	return took, nil
}

// okVerdicts is nil when a run's output holds exactly verdicts ok
// verdicts, else why not.
func okVerdicts(out []byte, err error, verdicts int) error {
	if err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	if got := strings.Count(string(out), `"verdict":"ok"`); got != verdicts {
		return fmt.Errorf("%d ok verdicts, want %d: %s", got, verdicts, out)
	}
	return nil
}
