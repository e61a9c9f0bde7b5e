package cli

import (
	"errors"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// sourceOptions select the program: --code SRC, --code - (stdin) or
// --file PATH (- is stdin too).
type sourceOptions struct {
	code, file string
}

func (o *sourceOptions) flags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "code", Usage: "program `SOURCE` (- reads it from stdin)", Destination: &o.code},
		&cli.StringFlag{Name: "file", Usage: "read the program from `PATH` (- reads it from stdin)", TakesFile: true, Destination: &o.file},
	}
}

// read reads the program the flags name, refusing an oversized file or
// stdin without reading it all (protocol.Read). Which flag was given is the
// flag set's to say: --code "" is an empty program. A program over the
// request limit from --file is refused naming the file.
func (o *sourceOptions) read(c *cli.Context) (string, error) {
	code, file := c.IsSet("code"), c.IsSet("file")
	var r io.Reader
	stdin := false
	flag := "--code"
	if file {
		flag = "--file"
	}
	switch {
	case code && file:
		return "", rejectf("conflicting options: --code and --file")
	case !code && !file:
		return "", rejectf("one of --code or --file is required")
	case file && o.file == "-", o.code == "-":
		if isTerminal(c.App.Reader) {
			// Nobody is going to type a program and then Ctrl-D.
			return "", rejectf("%s -: standard input is a terminal; pipe the program in, or use --file PATH", flag)
		}
		r, stdin = c.App.Reader, true
	case file:
		f, err := os.Open(o.file)
		if err != nil {
			return "", rejectf("--file: %w", err)
		}
		defer f.Close()
		c.App.Metadata[metaProgram] = o.file
		r = f
	default:
		return o.code, nil
	}
	// Read refuses a source over the bound; its encoded size, as every
	// rule of a source, is Run's and Eval's to check, and the stderr line
	// names a --file program whatever refused it.
	src, err := protocol.Read(r)
	switch {
	case errors.Is(err, protocol.ErrTooLarge):
		// The one message of a request over the limit; the stderr line
		// names a --file program (metaProgram) before it.
		return "", &rejected{err: err}
	case err != nil:
		return "", rejectf("%s: %w", flag, err)
	}
	if stdin && src == "" {
		// A redirect from /dev/null or a producer that failed: not a
		// program to run. --code "" is one, written out.
		return "", rejectf("%s -: standard input is empty", flag)
	}
	return src, nil
}
