package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// inputOptions are the program's data: --stdin PATH|- and --from-file
// [NAME=]PATH, repeatable. What they read is text, bounded as it is read
// (protocol.ReadPart) and held to every rule of a request by the one
// ingress check (protocol.EncodeRequest) when Run encodes it.
type inputOptions struct {
	stdin     string
	fromFiles cli.StringSlice
}

func (o *inputOptions) flags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "stdin", Usage: "the program's standard input, read from `PATH` (- reads it from stdin); without it, end-of-file at once",
			TakesFile: true, Destination: &o.stdin},
		&cli.StringSliceFlag{Name: "from-file", Usage: "place a file in the program's working directory: `SPEC` is [NAME=]PATH, " +
			"NAME PATH's base name by default; any bytes (text goes as text, other bytes as base64, counted so); " +
			"repeatable (in Starlark a module for load(), text only)",
			TakesFile: true, Destination: &o.fromFiles},
	}
}

// conflict refuses --stdin - beside a program read from stdin too: one
// stream cannot be both.
func (o *inputOptions) conflict(c *cli.Context, src *sourceOptions) error {
	if !c.IsSet("stdin") || o.stdin != "-" {
		return nil
	}
	switch {
	case c.IsSet("code") && src.code == "-":
		return rejectf("conflicting options: --code - and --stdin - (standard input can be only one of them)")
	case c.IsSet("file") && src.file == "-":
		return rejectf("conflicting options: --file - and --stdin - (standard input can be only one of them)")
	}
	return nil
}

// read reads --stdin and every --from-file, refusing a missing file, a
// name that is not a plain one or given twice, and a part over the
// request bound, before anything starts.
func (o *inputOptions) read(c *cli.Context) (stdin string, files map[string]string, binary map[string][]byte, err error) {
	if c.IsSet("stdin") {
		if stdin, err = o.readStdin(c); err != nil {
			return "", nil, nil, err
		}
	}
	for _, spec := range o.fromFiles.Value() {
		name, path, ok := strings.Cut(spec, "=")
		if !ok {
			name, path = filepath.Base(spec), spec
		}
		if err := protocol.CheckName(name); err != nil {
			return "", nil, nil, rejectf("--from-file %s: %w", spec, err)
		}
		_, dup := files[name]
		if _, dupBin := binary[name]; dup || dupBin {
			return "", nil, nil, rejectf("--from-file %s: file name %q given twice", spec, name)
		}
		content, err := readFile(path, fmt.Sprintf("file %q", name), "--from-file "+spec)
		if err != nil {
			return "", nil, nil, err
		}
		if !utf8.ValidString(content) {
			// Bytes, not text: they travel as base64, which the request's
			// bound counts as it is sent.
			if binary == nil {
				binary = map[string][]byte{}
			}
			binary[name] = []byte(content)
			continue
		}
		if files == nil {
			files = map[string]string{}
		}
		files[name] = content
	}
	return stdin, files, binary, nil
}

func (o *inputOptions) readStdin(c *cli.Context) (string, error) {
	if o.stdin != "-" {
		return readFile(o.stdin, "stdin", "--stdin")
	}
	if isTerminal(c.App.Reader) {
		return "", rejectf("--stdin -: standard input is a terminal; pipe the input in, or use --stdin PATH")
	}
	return readPart(c.App.Reader, "stdin", "--stdin -")
}

// readFile reads one part from the file at path.
func readFile(path, part, flag string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", rejectf("%s: %w", flag, err)
	}
	defer f.Close()
	return readPart(f, part, flag)
}

// readPart reads one part, bounded; over the bound the refusal is the
// one message of a request over the limit, naming the part.
func readPart(r io.Reader, part, flag string) (string, error) {
	s, err := protocol.ReadPart(r, part)
	switch {
	case errors.Is(err, protocol.ErrTooLarge):
		return "", &rejected{err: err}
	case err != nil:
		return "", rejectf("%s: %w", flag, err)
	}
	return s, nil
}
