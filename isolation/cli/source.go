package cli

import (
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation"
)

// sourceFlags select the program: --code SRC, --code - (stdin) or --file PATH.
func sourceFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "code", Usage: "program `SOURCE` (- reads it from stdin)"},
		&cli.StringFlag{Name: "file", Usage: "read the program from `PATH` (- reads it from stdin)", TakesFile: true},
	}
}

// readSource reads the program named by the flags, refusing an oversized
// file or stdin without reading it all (isolation.ReadSource).
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
	src, err := isolation.ReadSource(r)
	if isRejected(err) {
		return "", err // the one message of a request over the limit
	}
	if err != nil {
		return "", rejectf("%s: %w", flag, err)
	}
	return src, nil
}
