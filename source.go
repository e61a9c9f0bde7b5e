package main

import (
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// sourceFlags select the program: --code SRC, --code - (stdin) or --file PATH.
func sourceFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "code", Usage: "program `SOURCE` (- reads it from stdin)"},
		&cli.StringFlag{Name: "file", Usage: "read the program from `PATH` (- reads it from stdin)", TakesFile: true},
	}
}

// readSource reads the program named by the flags, at most the request
// limit plus one byte, so an oversized file is refused without reading it
// all.
func readSource(c *cli.Context) (string, error) {
	code, file := c.IsSet("code"), c.IsSet("file")
	var r io.Reader
	flag := "--code"
	if file {
		flag = "--file"
	}
	switch {
	case code && file:
		return "", rejectf("conflicting options: --code and --file")
	case !code && !file:
		return "", rejectf("one of --code or --file is required")
	case file && c.String("file") == "-", c.String("code") == "-":
		r = c.App.Reader
	case file:
		f, err := os.Open(c.String("file"))
		if err != nil {
			return "", rejectf("--file: %w", err)
		}
		defer f.Close()
		r = f
	default:
		return c.String("code"), nil
	}
	b, err := io.ReadAll(io.LimitReader(r, limits.MaxRequestBytes+1))
	if err != nil {
		return "", rejectf("%s: %w", flag, err)
	}
	if len(b) > limits.MaxRequestBytes {
		// Encoding never shrinks a source: this request is over the limit.
		return "", &rejected{err: protocol.RequestTooLarge(-1)}
	}
	return string(b), nil
}
