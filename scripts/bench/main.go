// Command bench measures what the supervisor adds to a run: paired wall
// times of `synapse-isolation run --code '1+2'` and of a bare `docker run`
// with the identical argv (from `synapse-isolation argv`) and request, in
// alternating order, and the supervisor's own peak RSS.
//
// With -baseline IMAGE it instead measures the runner's per-run
// attestation: paired bare `docker run`s of the image and of a baseline
// image whose runner does not attest, in alternating order, and the time
// the runner itself reports for reading the attestation.
//
// With -stdin it measures what input costs: paired runs of a program
// reading 60 KiB of --stdin against the same program without it.
//
// Usage: go run ./scripts/bench -tool PATH -image ID [-n 30] [-baseline ID]
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	tool := flag.String("tool", "./synapse-isolation", "synapse-isolation binary")
	image := flag.String("image", "", "image ID")
	n := flag.Int("n", 30, "pairs")
	baseline := flag.String("baseline", "", "image ID whose runner does not attest: measure the attestation instead")
	batchMode := flag.Bool("batch", false, "measure batch: warm latency, throughput against bare docker run, peak RSS")
	python := flag.String("python", "", "Python image ID: measure print(1+2) there against 1+2 on -image")
	seccomp := flag.Bool("seccomp", false, "measure the policy's seccomp profile against the engine's default, bare docker runs")
	warmBase := flag.String("warm-against", "", "TOOL,IMAGE of an earlier build: batch's warm latency of both, in alternating rounds")
	warmVsCold := flag.Bool("warm-ratio", false, "measure a warm batch line against a cold run of 1+2, paired (-n pairs)")
	warm := flag.Bool("warm", false, "measure batch's warm latency alone (-n requests), under -runtime if set")
	flag.StringVar(&runtime, "runtime", "", "OCI runtime for -warm (runsc: gVisor), as run's --runtime")
	preload := flag.Duration("preload", 0, "measure, on -image (the science image), batch's warm latency of a numpy line against print(1), this long between requests")
	line := flag.String("line", warmNumpy, "-preload: the line measured against print(1)")
	imports := flag.Bool("imports", false, "measure, on -image (the science image), a cold run importing numpy, scipy, pandas and matplotlib against print(1)")
	stdin := flag.Bool("stdin", false, "measure a run with 60 KiB of stdin against one without (on -python's image if given)")
	kinds := flag.String("kinds", "", "measure a hello world on each image of KIND=ID,KIND=ID,...: its size, cold runs, warm batch lines and compile step")
	checkerTests := flag.Int("checker", 0, "measure, on -image (a Python image), one request of this many tests graded by a Python checker, and by a Python interactor, against the same compared")
	judgeTests := flag.Int("judge", 0, "measure, on -image (a Python image), one request of this many tests against a run per test and a batch line per test")
	timeout := flag.Duration("timeout", 0, "measure how soon after a deadline this long a run of an endless program returns, its container gone (-n runs)")
	flag.Parse()
	baseTool, baseImage, _ := strings.Cut(*warmBase, ",")
	// The last measurement asked for is the one made.
	run := func() error { return bench(*tool, *image, *n) }
	for _, c := range []struct {
		asked bool
		run   func() error
	}{
		{*warm, func() error { return warmLatency(*tool, *image, *n) }},
		{*warmVsCold, func() error { return warmRatio(*tool, *image, *n) }},
		{*baseline != "", func() error { return attestCost(*tool, *image, *baseline, *n) }},
		{*batchMode, func() error { return benchBatch(*tool, *image, *n) }},
		{*python != "", func() error { return pythonCost(*tool, *image, *python, *n) }},
		{*stdin, func() error { return stdinCost(*tool, *image, *python, *n) }},
		{*seccomp, func() error { return profileCost(*tool, *image, *n) }},
		{*imports, func() error { return importCost(*tool, *image, *n) }},
		{*preload > 0, func() error { return preloadCost(*tool, *image, *line, *n, *preload) }},
		{*judgeTests > 0, func() error { return judgeCost(*tool, *image, *judgeTests, *n) }},
		{*kinds != "", func() error { return kindCost(*tool, *kinds, *n) }},
		{*checkerTests > 0, func() error { return checkerCost(*tool, *image, *checkerTests, *n) }},
		{*timeout > 0, func() error { return timeoutReturn(*tool, *image, *timeout, *n) }},
		{*warmBase != "", func() error { return warmPaired(*tool, *image, baseTool, baseImage, *n) }},
	} {
		if c.asked {
			run = c.run
		}
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

const request = `{"source":"1+2"}`

func bench(tool, image string, n int) error {
	var toolT, bareT, ratios, handshakes []float64
	var rss []float64
	for i := 0; i < 2; i++ { // warm caches; not counted
		if _, _, _, err := runTool(tool, image, false); err != nil {
			return err
		}
	}
	// Peak RSS is sampled in runs of its own: polling /proc every 2 ms
	// takes CPU from the engine on a small machine, so timed runs do not.
	for i := 0; i < 5; i++ {
		_, kb, _, err := runTool(tool, image, true)
		if err != nil {
			return err
		}
		rss = append(rss, kb)
	}
	for i := 0; i < n; i++ {
		var t, b float64
		var err error
		order := []bool{i%2 == 0, i%2 != 0} // alternate which goes first
		for _, toolFirst := range order {
			if toolFirst {
				var hs float64
				if t, _, hs, err = runTool(tool, image, false); err != nil {
					return err
				}
				handshakes = append(handshakes, hs)
			} else if b, err = runBare(tool, image, i); err != nil {
				return err
			}
		}
		toolT, bareT, ratios = append(toolT, t), append(bareT, b), append(ratios, t/b)
	}
	fmt.Printf("pairs: %d (alternating order), request %s\n", n, request)
	fmt.Printf("synapse-isolation run   median %.1f ms  (min %.1f, max %.1f)\n", median(toolT), slices.Min(toolT), slices.Max(toolT))
	fmt.Printf("bare docker run         median %.1f ms  (min %.1f, max %.1f)\n", median(bareT), slices.Min(bareT), slices.Max(bareT))
	fmt.Printf("paired ratio run/bare   median %.3f  (min %.3f, max %.3f)\n", median(ratios), slices.Min(ratios), slices.Max(ratios))
	fmt.Printf("supervisor peak RSS     median %.1f MiB (VmHWM of the synapse-isolation process, 5 runs of their own)\n", median(rss)/1024)
	fmt.Printf("handshake, as timed by the runner (hello written to request read)  median %.3f ms  (min %.3f, max %.3f)\n",
		median(handshakes), slices.Min(handshakes), slices.Max(handshakes))
	return nil
}

// runTool times one run and, with sample, polls the supervisor's VmHWM
// until it exits; it also returns the run's handshake_us, in ms.
func runTool(tool, image string, sample bool) (ms, hwmKB, handshakeMS float64, err error) {
	cmd := exec.Command(tool, "run", "--image", image, "--code", "1+2")
	var out bytes.Buffer
	cmd.Stdout = &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, 0, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	poll := time.Hour
	if sample {
		poll = 2 * time.Millisecond
	}
	for {
		if sample {
			hwmKB = max(hwmKB, vmHWM(cmd.Process.Pid))
		}
		select {
		case err := <-done:
			ms = float64(time.Since(start).Microseconds()) / 1000
			var res struct {
				Verdict string
				Timings struct {
					HandshakeUS float64 `json:"handshake_us"`
				}
			}
			if err != nil || json.Unmarshal(out.Bytes(), &res) != nil || res.Verdict != "ok" {
				return 0, 0, 0, fmt.Errorf("run: %v: %s", err, out.String())
			}
			return ms, hwmKB, res.Timings.HandshakeUS / 1000, nil
		case <-time.After(poll):
		}
	}
}

func vmHWM(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			return kb
		}
	}
	return 0
}

// attestCost runs paired bare docker runs of image and baseline.
func attestCost(tool, image, baseline string, n int) error {
	var with, without, diffs, took []float64
	for i := 0; i < n; i++ {
		var w, wo float64
		for _, attested := range []bool{i%2 == 0, i%2 != 0} {
			if attested {
				ms, out, err := bare(tool, image, i)
				if err != nil {
					return err
				}
				// The attestation is the hello, the first line.
				hello, _, _ := bytes.Cut(out, []byte("\n"))
				var resp struct {
					Selfcheck *struct {
						TookMicros float64 `json:"took_us"`
					} `json:"selfcheck"`
				}
				if err := json.Unmarshal(hello, &resp); err != nil || resp.Selfcheck == nil {
					return fmt.Errorf("no hello in %s", out)
				}
				w = ms
				took = append(took, resp.Selfcheck.TookMicros/1000)
			} else {
				ms, _, err := bare(tool, baseline, n+i)
				if err != nil {
					return err
				}
				wo = ms
			}
		}
		with, without, diffs = append(with, w), append(without, wo), append(diffs, w-wo)
	}
	fmt.Printf("pairs: %d (alternating order), bare docker run, request %s\n", n, request)
	fmt.Printf("attesting runner        median %.1f ms  (min %.1f, max %.1f)\n", median(with), slices.Min(with), slices.Max(with))
	fmt.Printf("baseline runner         median %.1f ms  (min %.1f, max %.1f)\n", median(without), slices.Min(without), slices.Max(without))
	fmt.Printf("paired difference       median %+.2f ms  (min %+.1f, max %+.1f)\n", median(diffs), slices.Min(diffs), slices.Max(diffs))
	fmt.Printf("attestation, as timed by the runner  median %.3f ms  (min %.3f, max %.3f)\n", median(took), slices.Min(took), slices.Max(took))
	return nil
}

// runBare times docker run with the argv the tool prints for the same flags.
func runBare(tool, image string, i int) (float64, error) {
	ms, _, err := bare(tool, image, i)
	return ms, err
}

// bare runs the tool's argv for image with plain docker and returns the
// time and the response.
func bare(tool, image string, i int) (float64, []byte, error) {
	argv, err := toolArgv(tool, image, fmt.Sprintf("synapse-iso-bench-%d-%d", os.Getpid(), i))
	if err != nil {
		return 0, nil, err
	}
	return timeBare(argv)
}

// toolArgv is the tool's exact argv for image under the container name.
func toolArgv(tool, image, name string) ([]string, error) {
	js, err := exec.Command(tool, "argv", "--format", "json", "--image", image, "--name", name).Output()
	if err != nil {
		return nil, err
	}
	var argv []string
	return argv, json.Unmarshal(js, &argv)
}

// timeBare runs argv with the bench's request on stdin and times it; the
// response must carry the request's result.
func timeBare(argv []string) (float64, []byte, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin = strings.NewReader(request)
	start := time.Now()
	out, err := cmd.Output()
	ms := float64(time.Since(start).Microseconds()) / 1000
	if err != nil || !strings.Contains(string(out), `"result":3`) {
		return 0, nil, fmt.Errorf("bare docker run: %v: %s", err, out)
	}
	return ms, out, nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
