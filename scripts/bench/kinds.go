package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// hellos are a hello world in each image kind's language.
var hellos = map[string]string{
	"starlark":   `print("hello")`,
	"python":     `print("hello")`,
	"science":    `print("hello")`,
	"c":          "#include <stdio.h>\nint main(void) { puts(\"hello\"); return 0; }\n",
	"cpp":        "#include <iostream>\nint main() { std::cout << \"hello\\n\"; }\n",
	"java":       "public class Main { public static void main(String[] a) { System.out.println(\"hello\"); } }\n",
	"node":       `console.log("hello")`,
	"typescript": `console.log("hello")`,
	"ruby":       `puts "hello"`,
	"php":        "<?php echo \"hello\\n\";\n",
	"go":         "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n",
	"rust":       "fn main() { println!(\"hello\"); }\n",
}

// kindCost measures a hello world on each image of kinds (KIND=ID,
// comma-separated): its size, n cold runs (the tool's wall time, and the
// compile step's wall_ms where the image compiles), and n warm batch
// lines, a second apart so the batch's next container is up and idle
// (a preload included) before each is timed. Each is checked: ok and
// "hello".
func kindCost(tool, kinds string, n int) error {
	fmt.Printf("%-10s %9s %10s %10s %10s\n", "kind", "size MB", "cold ms", "warm ms", "compile ms")
	for _, kv := range strings.Split(kinds, ",") {
		kind, image, ok := strings.Cut(kv, "=")
		src, known := hellos[kind]
		if !ok || !known {
			return fmt.Errorf("-kinds: %q is not KIND=ID of a known kind", kv)
		}
		size, err := exec.Command("docker", "image", "inspect", "-f", "{{.Size}}", image).Output()
		if err != nil {
			return fmt.Errorf("%s: %v", kind, err)
		}
		var cold, compile, warm []float64
		for range n {
			start := time.Now()
			out, err := exec.Command(tool, "run", "--image", image, "--timeout", "60s", "--code", src).Output()
			ms := float64(time.Since(start).Microseconds()) / 1000
			var res struct {
				Verdict, Output string
				Compile         *struct {
					WallMS float64 `json:"wall_ms"`
				}
			}
			if err != nil || json.Unmarshal(out, &res) != nil || res.Verdict != "ok" || res.Output != "hello\n" {
				return fmt.Errorf("%s: run: %v: %s", kind, err, out)
			}
			cold = append(cold, ms)
			if res.Compile != nil {
				compile = append(compile, res.Compile.WallMS)
			}
		}
		if warm, err = warmHellos(tool, image, src, n); err != nil {
			return fmt.Errorf("%s: %w", kind, err)
		}
		comp := "-"
		if len(compile) > 0 {
			comp = fmt.Sprintf("%.0f", median(compile))
		}
		var bytes float64
		fmt.Sscan(string(size), &bytes)
		fmt.Printf("%-10s %9.1f %10.0f %10.0f %10s\n", kind, bytes/1e6, median(cold), median(warm), comp)
	}
	fmt.Printf("medians of %d runs and %d warm lines each\n", n, n)
	return nil
}

// warmHellos times n warm batch lines of src on image, a second apart,
// after a first line that starts the batch's first container.
func warmHellos(tool, image, src string, n int) ([]float64, error) {
	s, err := startSession(tool, "--image", image, "--parallel", "1", "--timeout", "60s")
	if err != nil {
		return nil, err
	}
	defer s.close()
	b, _ := json.Marshal(map[string]string{"source": src})
	var warm []float64
	for i := -1; i < n; i++ {
		time.Sleep(time.Second)
		l, ms, err := s.ask(b)
		if err != nil || !strings.Contains(l, `"verdict":"ok"`) || !strings.Contains(l, `"output":"hello\n"`) {
			return nil, fmt.Errorf("warm line: %v: %s", err, l)
		}
		if i >= 0 {
			warm = append(warm, ms)
		}
	}
	return warm, nil
}
