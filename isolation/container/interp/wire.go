package interp

import "github.com/synapse-lang/synapse-isolation/isolation/protocol"

// wireTypes spells each failure kind as the wire's error type: the one
// map of both evaluators' callers, the runner and the in-process eval.
var wireTypes = map[ErrorKind]string{
	Syntax:    protocol.ErrSyntax,
	Runtime:   protocol.ErrRuntime,
	Cancelled: protocol.ErrTimeout,
}

// Wire is e as a response's error.
func (e *Error) Wire() *protocol.Error {
	return &protocol.Error{Type: wireTypes[e.Kind], Message: e.Msg, Line: e.Line, Col: e.Col}
}
