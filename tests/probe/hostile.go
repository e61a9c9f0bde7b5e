package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// hostile plays a runner that lies: the request's source names how.
func hostile() {
	var req struct{ Source string }
	b, _ := io.ReadAll(io.LimitReader(os.Stdin, 1<<17))
	_ = json.Unmarshal(b, &req)
	const ok = `{"v":1,"ok":true,"result":3,"output":"","output_truncated":false,"output_bytes":0}`
	switch strings.TrimSpace(req.Source) {
	case "two-json":
		fmt.Println(ok)
		fmt.Println(ok)
	case "malformed":
		fmt.Println(`{"v":1,"ok":tr`)
	case "missing":
	case "big-output":
		fmt.Printf(`{"v":1,"ok":true,"result":null,"output":"%s","output_truncated":true,"output_bytes":70000}`+"\n",
			strings.Repeat("y", 64<<10+1))
	case "big-response":
		fmt.Printf(`{"v":1,"ok":true,"result":"%s","output":"","output_truncated":false,"output_bytes":0}`+"\n",
			strings.Repeat("z", 1<<20))
	case "endless":
		chunk := strings.Repeat("w", 1<<16)
		for {
			if _, err := os.Stdout.WriteString(chunk); err != nil {
				os.Exit(1)
			}
		}
	case "lying-truncation":
		fmt.Println(`{"v":1,"ok":true,"result":null,"output":"abc","output_truncated":true,"output_bytes":3}`)
	case "unknown-field":
		fmt.Println(`{"v":1,"ok":true,"result":null,"output":"","output_truncated":false,"output_bytes":0,"callable":"os.system"}`)
	case "unattested":
		fmt.Println(ok)
	case "nonzero-valid":
		fmt.Println(ok)
		os.Exit(1)
	default:
		os.Exit(3)
	}
}
