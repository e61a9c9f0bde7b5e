package isolation

import (
	"github.com/synapse-lang/synapse-isolation/isolation/internal/source"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/runargs"
)

// Request is one program to run and what it is given. Run checks every
// part by the rules of the protocol's request (their bounds are in
// package limits) before any container starts.
type Request struct {
	// Source is the program.
	Source string
	// Stdin is what the program reads on its standard input; empty, its
	// standard input is at end-of-file at once. In Starlark mode it is the
	// predeclared string stdin.
	Stdin string
	// Files are placed in the program's working directory, a fresh
	// directory under /tmp (exec mode), by name: plain names only (no /,
	// no .., no NUL, no leading -, not the source's own name), at most 32.
	// In Starlark mode they are modules for load().
	Files map[string]string
	// Binary are files of any bytes, placed beside Files (base64 on the
	// wire, counted so against the bound); exec mode only.
	Binary map[string][]byte
	// Collect names the files returned once the program ended: plain
	// names or globs over them, at most 32; exec mode only.
	Collect []string
	// Tests make the request a judge's: the program (compiled once, if
	// its language compiles) runs once per test, each a fresh process
	// with the test's stdin, under the test's own wall-clock and CPU-time
	// limits; its stdout is compared with the test's expected output.
	// At most limits.MaxTests, their data at most limits.MaxTestData in
	// all; exec mode only.
	Tests []Test
	// Compare is how a test's stdout is compared with its expected
	// output: CompareLines (the default, "": each line's trailing
	// whitespace and the trailing empty lines ignored) or CompareExact.
	Compare string
}

// Test is one test of a judge's request: its name, its stdin, and its
// expected stdout (Expect nil: none, so no comparison).
type Test struct {
	Name   string
	Stdin  []byte
	Expect []byte
}

// Compare modes of a judge's request.
const (
	CompareLines = source.CompareLines
	CompareExact = source.CompareExact
)

// input is req as the protocol's rules and encoding take it.
func (req Request) input() source.Input {
	in := source.Input{Source: req.Source, Stdin: req.Stdin, Files: req.Files, Binary: req.Binary, Collect: req.Collect, Compare: req.Compare}
	if req.Tests != nil {
		in.Tests = make([]source.Test, len(req.Tests))
		for i, t := range req.Tests {
			in.Tests[i] = source.Test{Name: t.Name, Stdin: t.Stdin, Expect: t.Expect}
		}
	}
	return in
}

// testNames are req's tests' names, nil without tests.
func testNames(req Request) []string {
	if req.Tests == nil {
		return nil
	}
	names := make([]string, len(req.Tests))
	for i, t := range req.Tests {
		names[i] = t.Name
	}
	return names
}

// encoded is a request as the host sends it, made once: its input as the
// protocol's rules take it, the request line, and its tests' data, which
// follows the line.
type encoded struct {
	in   source.Input
	body []byte
	data []byte
}

// encode is the one encoding of a request on the host
// (source.EncodeInput: its source, stdin and files), by the rules every
// interpreter shares.
func encode(req Request) (encoded, error) {
	in := req.input()
	body, err := source.EncodeInput(in, false)
	if err != nil {
		return encoded{}, &Error{Verdict: Rejected, Err: err}
	}
	return encoded{in: in, body: body, data: source.TestData(in.Tests)}, nil
}

// checkLanguage holds the request to the rules of the language its
// runner runs: Starlark's own (no NUL byte), and a compiled language's
// source file name, which no file of the request may take.
func (e encoded) checkLanguage(r runargs.Args) error {
	if r.Exec == nil {
		if err := source.CheckRules(e.in, true); err != nil {
			return &Error{Verdict: Rejected, Err: err}
		}
	}
	return checkSourceName(e.in, r.Source)
}
