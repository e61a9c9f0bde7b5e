package protocol

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
)

// Interactor is a judge's interactor: a trusted program that talks with
// the program, test by test, and grades it as a checker does (Checker:
// testlib's exits). It runs as `interactor INPUT ANSWER` (the test's
// input and its expected output, two files the program never sees) in a
// container of its own, on Image, while the program runs in its own: the
// host relays each one's stdout to the other's stdin, framed (the live
// frames below). The host side only: it never goes on the wire. A
// Grader.
type Interactor struct {
	Source string `json:"-"`
	Image  string `json:"-"`
}

// The live frames of an interactive test: the runner of a frame whose
// role is RoleInteractive (the program's) or RoleInteract (the
// interactor's) and the host speak them after the request and its data,
// until the response. Each is a line "=KIND I" (test I), and for the two
// that carry bytes " N" and then the N bytes:
//
//	runner to host: =ready I   about to start test I; it waits for =go I
//	                =io I N    what test I's process wrote to its stdout
//	                =shut I    test I's stdout reached its end
//	                =done I    test I's processes are all gone
//	host to runner: =go I      start test I: the other side is ready too
//	                =in I N    bytes for test I's stdin
//	                =eof I     test I's stdin reaches its end (the other
//	                           side's =shut)
//	                =end I     the other side's test I ended: the
//	                           interactor's stdin reaches EOF; the
//	                           program is stopped
//
// The host also ends the program's test I with =end, and the
// interactor's stdin with =eof, once the program's =io bytes of the test
// pass limits.MaxInteractedOutput: the rest is never relayed.
//
// No response begins with '=': a response is a JSON object.
const (
	LiveReady = "ready"
	LiveIO    = "io"
	LiveShut  = "shut"
	LiveDone  = "done"
	LiveGo    = "go"
	LiveIn    = "in"
	LiveEOF   = "eof"
	LiveEnd   = "end"
)

// MaxLiveChunk bounds the bytes of one =io or =in frame.
const MaxLiveChunk = 64 << 10

// MaxLiveHeader bounds a live frame's line, its newline included.
const MaxLiveHeader = 1 + 5 + 1 + 20 + 1 + 20 + 1

// LiveHeader is the line of a live frame of kind for test i; n is the
// byte count of the kinds that carry bytes (LiveIO, LiveIn), else unused.
func LiveHeader(kind string, i int, n int) []byte {
	line := "=" + kind + " " + strconv.Itoa(i)
	if carries(kind) {
		line += " " + strconv.Itoa(n)
	}
	return []byte(line + "\n")
}

// carries reports whether a live frame of kind carries bytes.
func carries(kind string) bool { return kind == LiveIO || kind == LiveIn }

// ErrLiveHeader: a line in place of a live frame's that is none.
var ErrLiveHeader = errors.New("a live frame's line that is none")

// ParseLiveHeader reads a live frame's line, without its newline: its
// kind (one of kinds), its test and, for a kind that carries bytes, their
// count, at most MaxLiveChunk.
func ParseLiveHeader(line []byte, kinds ...string) (kind string, i, n int, err error) {
	bad := fmt.Errorf("%w: %.40q", ErrLiveHeader, line)
	rest, ok := bytes.CutPrefix(line, []byte("="))
	fields := bytes.Split(rest, []byte(" "))
	if !ok || len(fields) < 2 {
		return "", 0, 0, bad
	}
	kind = string(fields[0])
	known := false
	for _, k := range kinds {
		known = known || k == kind
	}
	if want := 2 + btoi(carries(kind)); !known || len(fields) != want {
		return "", 0, 0, bad
	}
	if i, ok = number(fields[1]); !ok {
		return "", 0, 0, bad
	}
	if carries(kind) {
		if n, ok = number(fields[2]); !ok {
			return "", 0, 0, bad
		}
		if n > MaxLiveChunk {
			return "", 0, 0, fmt.Errorf("a live frame of %d bytes, over %d", n, MaxLiveChunk)
		}
	}
	return kind, i, n, nil
}

// number is b as a number in its one spelling, not negative.
func number(b []byte) (int, bool) {
	n, err := strconv.Atoi(string(b))
	return n, err == nil && n >= 0 && string(b) == strconv.Itoa(n)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// checkInteractive applies the rules of an interactive frame (the
// program's: its tests carry no data, which is the interactor's alone)
// and of an interactor's (RoleInteract: each test's input and expected
// output are its two files): either needs tests, and no compare mode.
func checkInteractive(f Frame) error {
	switch {
	case f.role != RoleInteractive && f.role != RoleInteract:
		return nil
	case f.Tests == nil:
		return errors.New("interactor: an interactor grades tests, and there are none")
	case f.Compare != "":
		return errors.New("interactor: the interactor grades; no compare mode beside it")
	}
	for _, t := range f.Tests {
		if f.role == RoleInteractive && (t.StdinBytes != 0 || t.ExpectBytes != nil) {
			return fmt.Errorf("test %q: an interactive program's test carries no data: its stdin is the interactor's", t.Name)
		}
	}
	return nil
}
