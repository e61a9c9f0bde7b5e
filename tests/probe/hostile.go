package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/attestation"
)

// hostile plays a runner that breaks protocol v2. The hello it sends is
// named by its command line (the word after --exec, so
// `run ... -- silent` selects it); without one it sends a hello that lies
// perfectly, and the request's source names how its response lies.
func hostile() {
	helloMode := ""
	for i, a := range os.Args {
		if a == "--exec" && i+1 < len(os.Args) {
			helloMode = os.Args[i+1]
		}
	}
	sendHello(helloMode)
	var req struct{ Source string }
	b, _ := io.ReadAll(io.LimitReader(os.Stdin, 1<<17))
	_ = json.Unmarshal(b, &req)
	if helloMode == "v1" {
		fmt.Println(`{"v":1,"ok":true,"result":3,"output":"","output_truncated":false,"output_bytes":0}`)
		return
	}
	respond(strings.TrimSpace(req.Source))
}

// sendHello sends the hello named by mode, or none.
func sendHello(mode string) {
	good := attestation.Hello(attestation.Perfect(512 << 20))
	switch mode {
	case "silent":
		time.Sleep(time.Hour)
	case "endless-line":
		os.Stdout.WriteString(`{"v":8,"selfcheck":{`)
		time.Sleep(time.Hour)
	case "not-json":
		fmt.Println("hello, host")
	case "oversized":
		os.Stdout.WriteString(`{"v":8,"selfcheck":{"env_keys":["` + strings.Repeat("K", 20<<10) + `"]}}` + "\n")
	case "weak":
		os.Stdout.WriteString(strings.Replace(good, `"pids_max":64`, `"pids_max":-1`, 1))
	case "twice":
		os.Stdout.WriteString(good + good)
	case "duplicate-key":
		// A hello a decoder keeping the last of a key reads as version 2.
		os.Stdout.WriteString(strings.Replace(good, `{"v":8`, `{"v":1,"v":8`, 1))
	case "dumpable":
		// A runner whose memory the program could open and rewrite.
		s := attestation.Perfect(512 << 20)
		s.ProcProbes["mem"] = 0
		os.Stdout.WriteString(attestation.Hello(s))
	case "v1":
		// Protocol v1: no hello; it waits for its request, then answers.
	default:
		os.Stdout.WriteString(good)
	}
}

// respond answers a request whose source names how the answer lies.
func respond(source string) {
	const ok = `{"v":8,"ok":true,"result":3,"output":"","output_truncated":false,"output_bytes":0}`
	switch source {
	case "two-json":
		fmt.Println(ok)
		fmt.Println(ok)
	case "malformed":
		fmt.Println(`{"v":8,"ok":tr`)
	case "missing":
	case "duplicate-ok":
		// A failure that then claims success, for a decoder keeping the
		// last of a key.
		fmt.Println(`{"v":8,"ok":false,"result":3,"result_type":"int","output":"","output_truncated":false,"output_bytes":0,"ok":true}`)
	case "big-output":
		fmt.Printf(`{"v":8,"ok":true,"result":null,"output":"%s","output_truncated":true,"output_bytes":70000}`+"\n",
			strings.Repeat("y", 64<<10+1))
	case "big-response":
		fmt.Printf(`{"v":8,"ok":true,"result":"%s","output":"","output_truncated":false,"output_bytes":0}`+"\n",
			strings.Repeat("z", 1<<20))
	case "endless":
		chunk := strings.Repeat("w", 1<<16)
		for {
			if _, err := os.Stdout.WriteString(chunk); err != nil {
				os.Exit(1)
			}
		}
	case "lying-truncation":
		fmt.Println(`{"v":8,"ok":true,"result":null,"output":"abc","output_truncated":true,"output_bytes":3}`)
	case "unknown-field":
		fmt.Println(`{"v":8,"ok":true,"result":null,"output":"","output_truncated":false,"output_bytes":0,"callable":"os.system"}`)
	case "old-version":
		fmt.Println(`{"v":1,"ok":true,"result":3,"output":"","output_truncated":false,"output_bytes":0}`)
	case "hang":
		// A runner that ignores its own deadline: only the host can end it.
		time.Sleep(time.Hour)
	case "nonzero-valid":
		fmt.Println(ok)
		os.Exit(1)
	case "cpu-claim":
		// An hour of CPU time in the moment it took to answer.
		fmt.Println(`{"v":8,"ok":true,"result":3,"output":"","output_truncated":false,"output_bytes":0,"usage":{"cpu_us":3600000000,"memory_peak_bytes":1000000}}`)
	case "peak-claim":
		fmt.Println(`{"v":8,"ok":true,"result":3,"output":"","output_truncated":false,"output_bytes":0,"usage":{"cpu_us":1000,"memory_peak_bytes":1099511627776}}`)
	default:
		os.Exit(3)
	}
}
