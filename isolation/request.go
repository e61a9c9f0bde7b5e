package isolation

import (
	"io"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/runargs"
)

// Request is one program to run and what it is given: the protocol's
// request itself (protocol.Request, whose fields say what each part is),
// the one shape a caller, the command line, a batch line and the runner
// all hold, with no copy between them. Run checks every part by the rules of the protocol's request (their
// bounds are in package limits) before any container starts.
type Request = protocol.Request

// Test is one test of a judge's request: its name, its stdin, and its
// expected stdout (Expect nil: none, so no comparison). A caller sets
// Name, Stdin and Expect; the sizes beside them are the wire's, which the
// encoding sets from the bytes (protocol.Test).
type Test = protocol.Test

// Compare modes of a judge's request; a float comparison is
// "float:ABS[:REL]" (protocol.ParseCompare).
const (
	CompareLines = protocol.CompareLines
	CompareExact = protocol.CompareExact
	CompareFloat = protocol.CompareFloat
)

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

// encoded is a request as the host sends it, made once: its frame, the
// request line, and its tests' data, which follows the line.
type encoded struct {
	in   protocol.Frame
	body []byte
	// data writes the tests' data (nil: none): the bytes of the tests,
	// or a check's, streamed from the program's kept outputs.
	data func(io.Writer) error
}

// encode is the one encoding of a request frame on the host
// (protocol.EncodeFrame: its source, stdin, files and role), by the
// rules every interpreter shares.
func encode(f protocol.Frame) (encoded, error) {
	body, err := protocol.EncodeFrame(f, false)
	if err != nil {
		return encoded{}, &Error{Verdict: protocol.Rejected, Err: err}
	}
	enc := encoded{in: f, body: body}
	if data := protocol.TestData(f.Tests); len(data) > 0 {
		enc.data = func(w io.Writer) error {
			_, err := w.Write(data)
			return err
		}
	}
	return enc, nil
}

// checkLanguage holds the request to the rules of the language its
// runner runs: Starlark's own (no NUL byte), and a compiled language's
// source file name, which no file of the request may take.
func (e encoded) checkLanguage(r runargs.Args) error {
	if r.Exec == nil {
		if err := protocol.CheckRules(e.in, true); err != nil {
			return &Error{Verdict: protocol.Rejected, Err: err}
		}
	}
	return checkSourceName(e.in.Request, r.Source)
}
