package limits

import "time"

// A judge's checker: a trusted program, run in a container of its own
// after the program's, that grades each test from three files: the
// test's input, the program's output and the expected output
// (protocol.Checker).
const (
	// MaxCheckedOutput bounds the program's stdout a checker is given for
	// one test, the whole of it up to here (more is cut, and the result
	// says how much was given). The checker's container holds the test's
	// three files in its /tmp: the input and expected output, at most
	// MaxTestData, this, and the checker's own build fit TmpBytes.
	MaxCheckedOutput = TmpBytes / 4
	// MaxCheckedTotal bounds the stdout of all of a request's tests that
	// the host keeps for its checker, in files of its own, until the
	// checker ran: a test past it is given what was left.
	MaxCheckedTotal = 8 * TmpBytes
	// CheckerTimeout is a checker's wall-clock limit on one test, and its
	// CPU-time limit; its compile step has the program's (CompileTimeout).
	CheckerTimeout = 10 * time.Second
	// CheckerMemory is the memory (and swap) of the checker's container:
	// the checker's own and the test's files in its /tmp.
	CheckerMemory Bytes = 512 << 20
	// MaxCheckerMessage bounds the checker's message in a test's result:
	// the head of its stderr, as testlib writes its verdict's words there.
	MaxCheckerMessage = 200
)
