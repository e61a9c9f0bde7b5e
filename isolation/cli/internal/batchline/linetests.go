package batchline

import (
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// lineTest is a test as a batch line carries it: its data as text, within
// the line's bound.
type lineTest struct {
	Name   string  `json:"name"`
	Stdin  string  `json:"stdin"`
	Expect *string `json:"expect"`
}

// fromLine is a batch line's "tests" as a request's: the strict decoder
// read them (an array of {"name", "stdin", "expect"}, stdin and expect
// optional); the request's rules for tests apply once they are in it.
// None (nil) stays none: a request without tests.
func fromLine(tests []lineTest) []protocol.Test {
	if tests == nil {
		return nil
	}
	out := make([]protocol.Test, len(tests))
	for i, t := range tests {
		out[i] = protocol.Test{Name: t.Name, Stdin: []byte(t.Stdin)}
		if t.Expect != nil {
			out[i].Expect = []byte(*t.Expect)
		}
	}
	return out
}
