package main

import (
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"
)

// benchBatch measures batch: warm latency from outside (write one request,
// wait for its result line, pause, repeat), throughput of n requests
// against n bare docker runs of the same argv at the same parallelism, in
// alternating rounds (each round's ratio paired), and the batch process's peak RSS at --parallel 8.
func benchBatch(tool, image string, n int) error {
	if err := warmLatency(tool, image, 20); err != nil {
		return err
	}
	const rounds = 4
	for _, p := range []int{1, 2, 4} {
		var batchRate, bareRate, ratios []float64
		for round := 0; round < rounds; round++ {
			var b, x float64
			for _, batchFirst := range []bool{round%2 == 0, round%2 != 0} {
				if batchFirst {
					took, _, err := runBatch(tool, image, n, p)
					if err != nil {
						return err
					}
					b = float64(n) / took.Seconds()
				} else {
					took, err := bareParallel(tool, image, n, p)
					if err != nil {
						return err
					}
					x = float64(n) / took.Seconds()
				}
			}
			batchRate, bareRate, ratios = append(batchRate, b), append(bareRate, x), append(ratios, b/x)
		}
		fmt.Printf("throughput at %d: batch %.2f runs/s, bare docker run %.2f runs/s, paired ratio %.3f (min %.3f, max %.3f; %d requests, %d alternating rounds, medians)\n",
			p, median(batchRate), median(bareRate), median(ratios), slices.Min(ratios), slices.Max(ratios), n, rounds)
	}
	_, hwm, err := runBatch(tool, image, n, 8)
	if err != nil {
		return err
	}
	fmt.Printf("batch peak RSS at --parallel 8: %.1f MiB (VmHWM of the synapse-isolation process, %d requests)\n", hwm/1024, n)
	return nil
}

// warmLatency feeds one request at a time to a running batch.
func warmLatency(tool, image string, n int) error {
	lat, err := warmSamples(tool, image, n)
	if err != nil {
		return err
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	fmt.Printf("warm latency, request written to result line read: p50 %.1f ms, p95 %.1f ms, min %.1f, max %.1f (%d requests, 0.5 s apart)\n",
		median(lat), s[(len(s)-1)*95/100], s[0], s[len(s)-1], n)
	return nil
}

// warmPaired measures the warm latency of tool and of an earlier build,
// base, in alternating rounds of 10 requests each, n rounds each, and
// prints each one's median and the difference of the medians.
func warmPaired(tool, image, baseTool, baseImage string, n int) error {
	var now, before []float64
	for i := 0; i < n; i++ {
		for _, first := range []bool{i%2 == 0, i%2 != 0} {
			t, img, into := tool, image, &now
			if !first {
				t, img, into = baseTool, baseImage, &before
			}
			lat, err := warmSamples(t, img, 10)
			if err != nil {
				return err
			}
			*into = append(*into, lat...)
		}
	}
	fmt.Printf("warm latency p50: this build %.2f ms, earlier build %.2f ms, difference %+.2f ms (%d rounds of 10 requests each, alternating)\n",
		median(now), median(before), median(now)-median(before), n)
	return nil
}

// runtime is the OCI runtime warm latency is measured under (-runtime);
// empty is the engine's default.
var runtime string

// warmSamples writes n requests to one batch, 0.5 s apart, each once the
// result of the one before was read, and returns each one's latency in ms.
func warmSamples(tool, image string, n int) ([]float64, error) {
	args := []string{"--image", image, "--parallel", "1"}
	if runtime != "" {
		args = append(args, "--runtime", runtime)
	}
	s, err := startSession(tool, args...)
	if err != nil {
		return nil, err
	}
	defer s.close()
	var lat []float64
	time.Sleep(time.Second) // the first container starts
	for i := 0; i < n; i++ {
		line, ms, err := s.ask([]byte(fmt.Sprintf(`{"id": %d, "source": "1+2"}`, i)))
		if err != nil || !strings.Contains(line, `"verdict":"ok"`) {
			return nil, fmt.Errorf("warm latency: %v: %s", err, line)
		}
		lat = append(lat, ms)
		time.Sleep(500 * time.Millisecond) // its replacement starts meanwhile
	}
	return lat, nil
}

// runBatch runs n requests of 1+2 through batch at parallelism p and
// samples its VmHWM.
func runBatch(tool, image string, n, p int) (time.Duration, float64, error) {
	var in strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&in, `{"id": %d, "source": "1+2"}`+"\n", i)
	}
	cmd := exec.Command(tool, "batch", "--image", image, "--parallel", fmt.Sprint(p))
	cmd.Stdin = strings.NewReader(in.String())
	var out strings.Builder
	cmd.Stdout = &out
	cmd.Stderr = io.Discard
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var hwm float64
	for {
		if kb := vmHWM(cmd.Process.Pid); kb > hwm {
			hwm = kb
		}
		select {
		case err := <-done:
			took := time.Since(start)
			if err != nil || strings.Count(out.String(), `"verdict":"ok"`) != n {
				return 0, 0, fmt.Errorf("batch: %v: %d ok of %d", err, strings.Count(out.String(), `"verdict":"ok"`), n)
			}
			return took, hwm, nil
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// bareParallel runs n bare docker runs, p at a time.
func bareParallel(tool, image string, n, p int) (time.Duration, error) {
	start := time.Now()
	work := make(chan int, n)
	for i := 0; i < n; i++ {
		work <- i
	}
	close(work)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for w := 0; w < p; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if _, _, err := bare(tool, image, 100000+i); err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return time.Since(start), firstErr
}
