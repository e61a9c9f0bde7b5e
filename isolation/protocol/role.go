package protocol

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Grader grades a judge's tests in place of Compare (Request.Grader): a
// *Checker, which grades each test's whole output once the program is
// gone, or an *Interactor, which talks with the program test by test. It
// is sealed: no other type implements it. The host's alone, never sent:
// the host runs the program with its tests' output going to the grader,
// and the grader in a container of its own; each run's frame says its
// role (Role), which encoding derives from the grader (ProgramFrame,
// GraderFrame).
type Grader interface {
	// roles are the roles of the frames the grader's request is sent
	// as: the program's, and the grader's own run's.
	roles() (program, own Role)
	// source is the grader's own program.
	source() string
}

func (*Checker) roles() (Role, Role)    { return RoleChecked, RoleCheck }
func (*Interactor) roles() (Role, Role) { return RoleInteractive, RoleInteract }
func (c *Checker) source() string       { return c.Source }
func (i *Interactor) source() string    { return i.Source }

// Role is a request frame's part in a judge's mode, as the runner takes
// it: the frame's "role", one of a closed set, never set by a caller but
// derived when the frame is made (ProgramFrame from the request's Grader,
// GraderFrame for a grader's own run) and strictly decoded (an unknown
// one is refused).
type Role string

// The roles. RoleCompare, the program's with no grader, is the frame
// without "role".
const (
	// RoleCompare: the runner compares each test's stdout with its
	// expected output (Request.Compare), or runs a program without tests.
	RoleCompare Role = ""
	// RoleChecked: the program's, its tests' stdout going to a checker.
	// The runner compares nothing, and writes each test that exited 0
	// within its limits an output frame (OutputHeader) of its stdout, the
	// whole of it up to limits.MaxCheckedOutput, once its processes are
	// gone.
	RoleChecked Role = "checked"
	// RoleCheck: a checker's own run (its Source), once per test on the
	// test's input, the program's output (Test.OutputBytes) and the
	// expected output, which follow the frame test by test in that order
	// (DataPerTest); the runner reads each test's as it comes to it.
	RoleCheck Role = "check"
	// RoleInteractive: the program's, talking with an interactor. Its
	// tests carry no data (their stdin is the interactor's); each test's
	// stdin comes from the host, and its stdout goes to it, in live
	// frames (LiveHeader). The runner compares nothing.
	RoleInteractive Role = "interactive"
	// RoleInteract: an interactor's own run (its Source), once per test
	// as `interactor INPUT ANSWER` on the test's stdin and expected
	// output, its own stdin and stdout the live frames'.
	RoleInteract Role = "interact"
)

// roles are the roles a frame may name, in the order a refusal lists
// them.
var roles = []Role{RoleChecked, RoleCheck, RoleInteractive, RoleInteract}

// DataPerTest reports whether the tests' data comes test by test, read as
// the runner comes to each test (a check's: the program's output is
// among it), rather than whole, right after the frame (ReadTestData).
func (r Role) DataPerTest() bool { return r == RoleCheck }

// Frame is a request as its frame carries it: the request and its role.
// Its role is derived (ProgramFrame, GraderFrame) or decoded
// (DecodeFrame), never set: Role reads it.
type Frame struct {
	Request
	role Role
}

// Role is the frame's role.
func (f Frame) Role() Role { return f.role }

// ProgramFrame is the frame of r's program: its role the one its Grader
// gives the program (RoleCompare without one). An interactive program's
// tests carry their names alone: their data is the interactor's
// (GraderFrame).
func ProgramFrame(r Request) Frame {
	f := Frame{Request: r}
	if r.Grader != nil {
		f.role, _ = r.Grader.roles()
	}
	if f.role == RoleInteractive && r.Tests != nil {
		f.Tests = make([]Test, len(r.Tests))
		for i, t := range r.Tests {
			f.Tests[i] = Test{Name: t.Name}
		}
	}
	return f
}

// GraderFrame is the frame of g's own run: g's source, run once per test
// of tests, each test's expected output the grader's answer file (empty
// where the test has none), its role g's.
func GraderFrame(g Grader, tests []Test) Frame {
	_, own := g.roles()
	f := Frame{Request: Request{Source: g.source(), Tests: make([]Test, len(tests))}, role: own}
	for i, t := range tests {
		if t.Expect == nil {
			t.Expect = []byte{}
		}
		f.Tests[i] = t
	}
	return f
}

// wireFrame is a frame as it is encoded: the request's fields, then
// "role", left out for RoleCompare.
type wireFrame struct {
	Request
	Role Role `json:"role,omitempty"`
}

// decodeRole decodes a frame's "role" (nil when absent: RoleCompare): a
// string, one of roles.
func decodeRole(raw json.RawMessage) (Role, error) {
	if raw == nil {
		return RoleCompare, nil
	}
	s, err := DecodeString(raw, "role")
	if err == nil && !slices.Contains(roles, Role(s)) {
		err = fmt.Errorf(`"role" must be one of %q, %q, %q and %q`, roles[0], roles[1], roles[2], roles[3])
	}
	return Role(s), err
}
