package isolation

import (
	"github.com/synapse-lang/synapse-isolation/internal/source"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
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

// encode is the one encoding of a request on the host
// (source.EncodeInput: its source, stdin and files), by the rules every
// interpreter shares.
func encode(req Request) ([]byte, error) {
	body, err := source.EncodeInput(source.Input(req), false)
	if err != nil {
		return nil, &Error{Verdict: Rejected, Err: err}
	}
	return body, nil
}

// checkLanguage holds req to the rules of the language its runner runs:
// Starlark's own (no NUL byte), and a compiled language's source file
// name, which no file of the request may take.
func checkLanguage(req Request, r protocol.Args) error {
	if r.Exec == nil {
		if err := source.CheckRules(source.Input(req), true); err != nil {
			return &Error{Verdict: Rejected, Err: err}
		}
	}
	return checkSourceName(req, r.Source)
}
