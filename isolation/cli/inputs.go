package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// sourceOptions select the program: --code SRC, --code - (stdin) or
// --file PATH (- is stdin too).
type sourceOptions struct{ code, file string }

func (o *sourceOptions) flags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "code", Usage: "program `SOURCE` (- reads it from stdin)", Destination: &o.code},
		&cli.StringFlag{Name: "file", Usage: "read the program from `PATH` (- reads it from stdin)", TakesFile: true, Destination: &o.file},
	}
}

// read reads the program the flags name, refusing an oversized file or
// stdin without reading it all (protocol.Read). Which flag was given is the
// flag set's to say: --code "" is an empty program. program is the file
// it came from once that is open, which a failure's line names (even a
// refusal of the file: over the request limit).
func (o *sourceOptions) read(c *cli.Context, s *session) (src, program string, err error) {
	code, file := c.IsSet("code"), c.IsSet("file")
	flag := "--code"
	if file {
		flag = "--file"
	}
	var r io.Reader
	switch {
	case code && file:
		return "", "", rejectf("conflicting options: --code and --file")
	case !code && !file:
		return "", "", rejectf("one of --code or --file is required")
	case file && o.file == "-", o.code == "-":
		if isTerminal(s.stdin) {
			// Nobody is going to type a program and then Ctrl-D.
			return "", "", rejectf("%s -: standard input is a terminal; pipe the program in, or use --file PATH", flag)
		}
		r = s.stdin
	case file:
		f, err := os.Open(o.file)
		if err != nil {
			return "", "", rejectf("--file: %w", err)
		}
		defer f.Close()
		r, program = f, o.file
	default:
		return o.code, "", nil
	}
	// Read refuses a source over the bound; its encoded size, as every
	// rule of a source, is Run's and Eval's to check.
	switch src, err = protocol.Read(r); {
	case errors.Is(err, protocol.ErrTooLarge):
		return "", program, &rejected{err: err} // the one message of a request over the limit
	case err != nil:
		return "", program, rejectf("%s: %w", flag, err)
	case program == "" && src == "":
		// A redirect from /dev/null or a producer that failed: not a
		// program to run. --code "" is one, written out.
		return "", "", rejectf("%s -: standard input is empty", flag)
	}
	return src, program, nil
}

// inputOptions are the program's data: --stdin PATH|- and --from-file
// [NAME=]PATH, repeatable. What they read is bounded as it is read
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
	for _, f := range []struct{ name, value string }{{"code", src.code}, {"file", src.file}} {
		if c.IsSet("stdin") && o.stdin == "-" && c.IsSet(f.name) && f.value == "-" {
			return rejectf("conflicting options: --%s - and --stdin - (standard input can be only one of them)", f.name)
		}
	}
	return nil
}

// read reads --stdin and every --from-file into req, refusing a missing
// file, a name that is not a plain one or given twice, and a part over
// the request bound, before anything starts.
func (o *inputOptions) read(c *cli.Context, s *session, req *isolation.Request) (err error) {
	switch {
	case !c.IsSet("stdin"):
	case o.stdin != "-":
		req.Stdin, err = readFile(o.stdin, "stdin", "--stdin")
	case isTerminal(s.stdin):
		err = rejectf("--stdin -: standard input is a terminal; pipe the input in, or use --stdin PATH")
	default:
		req.Stdin, err = readPart(s.stdin, "stdin", "--stdin -")
	}
	if err != nil {
		return err
	}
	for _, spec := range o.fromFiles.Value() {
		name, path, ok := strings.Cut(spec, "=")
		if !ok {
			name, path = filepath.Base(spec), spec
		}
		if err := protocol.CheckName(name); err != nil {
			return rejectf("--from-file %s: %w", spec, err)
		}
		_, dup := req.Files[name]
		if _, dupBin := req.Binary[name]; dup || dupBin {
			return rejectf("--from-file %s: file name %q given twice", spec, name)
		}
		var content string
		if content, err = readFile(path, fmt.Sprintf("file %q", name), "--from-file "+spec); err != nil {
			return err
		}
		if utf8.ValidString(content) {
			req.Files = put(req.Files, name, content)
		} else {
			// Bytes, not text: they travel as base64, which the request's
			// bound counts as it is sent.
			req.Binary = put(req.Binary, name, []byte(content))
		}
	}
	return nil
}

// put is m with key set to v, m made if it was nil.
func put[V any](m map[string]V, key string, v V) map[string]V {
	if m == nil {
		m = map[string]V{}
	}
	m[key] = v
	return m
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

// filesOptions are what a run returns beside its output: --collect
// PATTERN, repeatable, and where the CLI writes what came back,
// --output-dir DIR and --force.
type filesOptions struct {
	collect cli.StringSlice
	output
}

// output is where the files that came back go: outputDir, each replacing
// a file of the same name with force.
type output struct {
	outputDir string
	force     bool
}

func (o *filesOptions) flags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "collect", Usage: "return the files of the program's working directory that `PATTERN` names once it " +
			"ended: a plain name or a glob over names (*.csv); repeatable, at most 32 files, within the response's 1 MiB; each " +
			"whole or an error entry (a link, FIFO, directory or file too large is never read)", Destination: &o.collect},
		&cli.StringFlag{Name: "output-dir", Usage: "write the returned files into `DIR` (made if missing), after an ok or " +
			"program_error verdict, by name, mode 0644, never through a link", TakesFile: true, Destination: &o.outputDir},
		&cli.BoolFlag{Name: "force", Usage: "--output-dir: replace a file of the same name (else it is an error)", Destination: &o.force},
	}
}

// check refuses, before anything runs, patterns a request cannot carry
// and an output directory that is not one.
func (o *filesOptions) check() error {
	for _, p := range o.collect.Value() {
		if err := protocol.CheckPattern(p); err != nil {
			return rejectf("--%w", err)
		}
	}
	if o.force && o.outputDir == "" {
		return rejectf("--force: only with --output-dir")
	}
	if o.outputDir == "" {
		return nil
	}
	if len(o.collect.Value()) == 0 {
		return rejectf("--output-dir: nothing to write without --collect")
	}
	if fi, err := os.Stat(o.outputDir); err == nil && !fi.IsDir() {
		return rejectf("--output-dir %s: not a directory", o.outputDir)
	}
	return nil
}

// patterns are the request's Collect: nil when none was given.
func (o *filesOptions) patterns() []string {
	if v := o.collect.Value(); len(v) > 0 {
		return slices.Clone(v)
	}
	return nil
}
