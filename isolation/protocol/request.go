package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol/strict"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// Request is the whole request, the one shape of it however it arrives
// (the library's isolation.Request, --code, --file, --stdin, --from-file,
// a batch line, the runner's stdin), with the one rule set of all of them
// (CheckRequest) and the one encoding of the request frame that carries
// it (EncodeRequest): the program's source, its standard input and the
// files beside it, valid UTF-8 text (in Starlark mode no NUL byte in the
// source or a file, which is a module for load() there), file names plain
// names, and the whole at most limits.MaxRequestBytes encoded. The host
// and the runner's decoder (DecodeFrame) share them, so a request the host
// sends is one the runner takes. There is no field for callables, objects
// or context, so none can be deserialized. Its JSON form is the request
// frame: stdin and the rest are left out when empty, so a request of
// source alone is the frame it always was.
type Request struct {
	// Source is the program.
	Source string `json:"source"`
	// Stdin is what the program reads on its standard input; empty, its
	// standard input is at end-of-file at once. In Starlark mode it is the
	// predeclared string stdin.
	Stdin string `json:"stdin,omitempty"`
	// Files are placed in the program's working directory, a fresh
	// directory under /tmp (exec mode), by name: plain names only (no /,
	// no .., no NUL, no leading -, not ProgramName, which is the source's
	// own; CheckName), at most MaxFiles. In Starlark mode they are modules
	// for load().
	Files map[string]string `json:"files,omitempty"`
	// Binary are files of any bytes, placed beside Files (base64 on the
	// wire, counted so against the bound); exec mode only.
	Binary map[string][]byte `json:"binary,omitempty"`
	// Collect names the files returned once the program ended: plain
	// names or globs over them (CheckPattern), at most MaxCollect; exec
	// mode only.
	Collect []string `json:"collect,omitempty"`
	// Tests make the request a judge's: the program (compiled once, if
	// its language compiles) runs once per test, each a fresh process
	// with the test's stdin, under the test's own wall-clock and CPU-time
	// limits; its stdout is compared with the test's expected output.
	// At most limits.MaxTests, their data at most limits.MaxTestData in
	// all, sent after the request (Test, TestData); exec mode only.
	Tests []Test `json:"tests,omitempty"`
	// Compare is how a test's stdout is compared with its expected
	// output: CompareLines (the default, "": each line's trailing
	// whitespace and the trailing empty lines ignored), CompareExact, or
	// "float:ABS[:REL]", numbers within an epsilon (ParseCompare).
	Compare string `json:"compare,omitempty"`
	// Grader grades the tests in place of Compare: a *Checker or an
	// *Interactor (their docs); nil, Compare does. The host's alone,
	// never sent as it is: the program's frame says what becomes of its
	// tests (ProgramFrame's role), and the grader runs in a container of
	// its own (GraderFrame).
	Grader Grader `json:"-"`
}

// checkSource applies the source's rules: valid UTF-8; in Starlark mode
// no NUL byte (go.starlark.net's scanner stops at one, so everything
// after it would silently never run; exec mode passes bytes to the
// interpreter as they are); and at most limits.MaxRequestBytes once
// encoded alone, so a program over the bound is refused as such, its
// other parts aside.
func checkSource(src string, starlark bool) error {
	return CheckRequest(Request{Source: src}, starlark)
}

// CheckRequest applies every rule of a request (EncodeRequest).
func CheckRequest(r Request, starlark bool) error {
	_, err := EncodeRequest(r, starlark)
	return err
}

// EncodeRequest encodes the frame of r's program (ProgramFrame).
func EncodeRequest(r Request, starlark bool) ([]byte, error) {
	return EncodeFrame(ProgramFrame(r), starlark)
}

// EncodeFrame encodes the request frame f, refusing one that breaks
// a rule: the source's (checkSource), stdin's (valid UTF-8; NUL bytes are data),
// each file's (CheckName, valid UTF-8, in Starlark mode no NUL, since a
// file there is a module), at most MaxFiles files, its role's, and the
// whole at most limits.MaxRequestBytes encoded. Its role, derived, is
// "role" (left out for RoleCompare). HTML characters are not escaped: <, >
// and & are a byte each, as written, not six against the bound (JSON
// allows both spellings, the runner decodes either). The encoding holds no
// raw newline (JSON escapes it in strings), so the frame on the wire is
// this plus one newline.
func EncodeFrame(f Frame, starlark bool) ([]byte, error) {
	if err := checkParts(f, starlark); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Grow(len(f.Source) + len(f.Stdin) + len(`{"source":""}`) + 1)
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	sized := wireFrame{Request: f.Request, Role: f.role}
	if f.Tests != nil {
		sized.Tests = withSizes(f.Tests)
	}
	if err := enc.Encode(sized); err != nil {
		return nil, err
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n")) // Encode's own newline
	if len(b) > limits.MaxRequestBytes {
		return nil, &tooLargeError{program: int64(len(f.Source)), encoded: len(b), parts: sizes(f.Request)}
	}
	return b, nil
}

// CheckRules applies the rules of every part of f, for Starlark or not,
// without encoding it: for a frame encoded already by the rules every
// interpreter shares, once its interpreter is known to be Starlark.
func CheckRules(f Frame, starlark bool) error { return checkParts(f, starlark) }

// checkParts applies each part's own rules, in the order a reader finds
// them: the source, stdin, then the files by name; then its role's and
// its tests'.
func checkParts(f Frame, starlark bool) error {
	r := f.Request
	if err := strict.CheckUTF8(r.Source); err != nil {
		return fmt.Errorf("source: %w", err)
	}
	if i := strings.IndexByte(r.Source, 0); starlark && i >= 0 {
		return fmt.Errorf("source: NUL byte at offset %d (Starlark would stop reading there)", i)
	}
	if err := checkStdin(r.Stdin); err != nil {
		return err
	}
	if n := len(r.Files) + len(r.Binary); n > MaxFiles {
		return fmt.Errorf("files: %d files, more than the %d allowed", n, MaxFiles)
	}
	for _, name := range sortedNames(r.Files) {
		if err := checkFile(name, r.Files[name], starlark); err != nil {
			return err
		}
	}
	for name := range r.Binary {
		if err := CheckName(name); err != nil {
			return err
		}
		if _, twice := r.Files[name]; twice {
			return fmt.Errorf("file %q: given twice", name)
		}
		if starlark {
			return fmt.Errorf("file %q: not text, and a Starlark file is a module: bytes are for an interpreter (exec mode)", name)
		}
	}
	if err := checkCollect(r.Collect, starlark); err != nil {
		return err
	}
	if err := checkChecked(f); err != nil {
		return err
	}
	if err := checkInteractive(f); err != nil {
		return err
	}
	return checkTests(r, starlark)
}

// checkStdin applies stdin's own rule: valid UTF-8 text.
func checkStdin(s string) error {
	if err := strict.CheckUTF8(s); err != nil {
		return fmt.Errorf("stdin: %w", err)
	}
	return nil
}

// checkFile applies a file's own rules: its name's (CheckName), valid
// UTF-8 content and, in Starlark mode, where a file is a module that
// load() reads as source, no NUL byte.
func checkFile(name, content string, starlark bool) error {
	if err := CheckName(name); err != nil {
		return err
	}
	if err := strict.CheckUTF8(content); err != nil {
		return fmt.Errorf("file %q: %w", name, err)
	}
	if i := strings.IndexByte(content, 0); starlark && i >= 0 {
		return fmt.Errorf("file %q: NUL byte at offset %d (Starlark would stop reading there)", name, i)
	}
	return nil
}
