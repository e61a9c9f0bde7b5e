// Package source is the one rule set of a request however it arrives
// (--code, --file, --stdin, --from-file, a batch line, the runner's
// stdin) and the one encoding of the request frame that carries it: the
// program's source, its standard input and the files beside it, all
// valid UTF-8 text, in Starlark mode no NUL byte in the source or a file
// (a file there is a module for load()), file names plain names, and the
// whole at most limits.MaxRequestBytes encoded. The runner's request
// decoder (protocol.DecodeRequest) and the host share it, so a request the
// host sends is one the runner takes.
package source

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol/strict"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// Input is a request's parts, protocol.Request's fields (that type
// converts to this one): the source, the program's standard input, and
// the files placed in its working directory by name.
type Input struct {
	Source string
	Stdin  string
	Files  map[string]string
	// Binary are files of any bytes, base64 on the wire (exec mode).
	Binary map[string][]byte
	// Collect are the patterns of the files to return once the program
	// ended (CheckPattern; exec mode).
	Collect []string
	// Tests make the request a judge's (checkTests; exec mode), Compare
	// how each test's output is compared (CompareLines, CompareExact).
	Tests   []Test
	Compare string
}

// frame is the request frame, protocol.Request's wire form
// (TestEncodeDecodes in package protocol holds them together): stdin and
// files are left out when empty, so a request of source alone is the
// frame it always was.
type frame struct {
	Source  string            `json:"source"`
	Stdin   string            `json:"stdin,omitempty"`
	Files   map[string]string `json:"files,omitempty"`
	Binary  map[string][]byte `json:"binary,omitempty"`
	Collect []string          `json:"collect,omitempty"`
	Tests   []Test            `json:"tests,omitempty"`
	Compare string            `json:"compare,omitempty"`
}

// Check applies the source's rules: valid UTF-8; in Starlark mode no NUL
// byte (go.starlark.net's scanner stops at one, so everything after it
// would silently never run; exec mode passes bytes to the interpreter as
// they are); and at most limits.MaxRequestBytes once encoded.
func Check(src string, starlark bool) error {
	_, err := Encode(src, starlark)
	return err
}

// Encode encodes the request frame of a source alone (EncodeInput).
func Encode(src string, starlark bool) ([]byte, error) {
	return EncodeInput(Input{Source: src}, starlark)
}

// CheckInput applies every rule of a request (EncodeInput).
func CheckInput(in Input, starlark bool) error {
	_, err := EncodeInput(in, starlark)
	return err
}

// EncodeInput encodes the request frame of in, refusing one that breaks
// a rule: the source's (Check), stdin's (valid UTF-8; NUL bytes are data),
// each file's (CheckName, valid UTF-8, in Starlark mode no NUL, since a
// file there is a module), at most MaxFiles files, and the whole at most
// limits.MaxRequestBytes encoded. HTML characters are not escaped: <, >
// and & are a byte each, as written, not six against the bound (JSON
// allows both spellings, the runner decodes either). The encoding holds no
// raw newline (JSON escapes it in strings), so the frame on the wire is
// this plus one newline.
func EncodeInput(in Input, starlark bool) ([]byte, error) {
	if err := checkParts(in, starlark); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Grow(len(in.Source) + len(in.Stdin) + len(`{"source":""}`) + 1)
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	f := frame(in)
	if f.Tests != nil {
		f.Tests = withSizes(f.Tests)
	}
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n")) // Encode's own newline
	if len(b) > limits.MaxRequestBytes {
		return nil, &tooLargeError{program: int64(len(in.Source)), encoded: len(b), parts: sizes(in)}
	}
	return b, nil
}

// CheckRules applies the rules of every part of in, for Starlark or not,
// without encoding it: for a request encoded already by the rules every
// interpreter shares, once its interpreter is known to be Starlark.
func CheckRules(in Input, starlark bool) error { return checkParts(in, starlark) }

// checkParts applies each part's own rules, in the order a reader finds
// them: the source, stdin, then the files by name.
func checkParts(in Input, starlark bool) error {
	if err := strict.CheckUTF8(in.Source); err != nil {
		return fmt.Errorf("source: %w", err)
	}
	if i := strings.IndexByte(in.Source, 0); starlark && i >= 0 {
		return fmt.Errorf("source: NUL byte at offset %d (Starlark would stop reading there)", i)
	}
	if err := CheckStdin(in.Stdin); err != nil {
		return err
	}
	if n := len(in.Files) + len(in.Binary); n > MaxFiles {
		return fmt.Errorf("files: %d files, more than the %d allowed", n, MaxFiles)
	}
	for _, name := range sortedNames(in.Files) {
		if err := CheckFile(name, in.Files[name], starlark); err != nil {
			return err
		}
	}
	for name := range in.Binary {
		if err := CheckName(name); err != nil {
			return err
		}
		if _, twice := in.Files[name]; twice {
			return fmt.Errorf("file %q: given twice", name)
		}
		if starlark {
			return fmt.Errorf("file %q: not text, and a Starlark file is a module: bytes are for an interpreter (exec mode)", name)
		}
	}
	if err := checkCollect(in.Collect, starlark); err != nil {
		return err
	}
	return checkTests(in, starlark)
}

// CheckStdin applies stdin's own rule: valid UTF-8 text.
func CheckStdin(s string) error {
	if err := strict.CheckUTF8(s); err != nil {
		return fmt.Errorf("stdin: %w", err)
	}
	return nil
}

// CheckFile applies a file's own rules: its name's (CheckName), valid
// UTF-8 content and, in Starlark mode, where a file is a module that
// load() reads as source, no NUL byte.
func CheckFile(name, content string, starlark bool) error {
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

// Field takes a frame's "source" field (nil when absent) and applies the
// source's rules.
func Field(raw json.RawMessage, starlark bool) (string, error) {
	if raw == nil {
		return "", errors.New(`missing field "source"`)
	}
	src, err := stringField(raw, "source")
	if err != nil {
		return "", err
	}
	if err := Check(src, starlark); err != nil {
		return "", err
	}
	return src, nil
}

// Fields takes a frame's "source", "stdin" and "files" fields (each nil
// when absent) and applies every rule of a request (CheckInput). A file
// name twice is the strict decoder's refusal (a duplicate key), before
// this.
func Fields(src, stdin, files json.RawMessage, starlark bool) (Input, error) {
	var in Input
	var err error
	if in.Source, err = Field(src, starlark); err != nil {
		return Input{}, err
	}
	if stdin != nil {
		if in.Stdin, err = stringField(stdin, "stdin"); err != nil {
			return Input{}, err
		}
	}
	if files != nil {
		if files[0] != '{' || json.Unmarshal(files, &in.Files) != nil {
			return Input{}, errors.New(`"files" must be an object of names to strings`)
		}
	}
	return in, CheckInput(in, starlark)
}

// stringField decodes raw, the value of a frame's field name, as a string.
func stringField(raw json.RawMessage, name string) (string, error) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", fmt.Errorf("%q must be a string", name)
	}
	return s, nil
}

// Extras adds a frame's "binary" (an object of names to base64) and
// "collect" (an array of patterns) fields (each nil when absent) to in,
// and applies every rule of a request again.
func Extras(in Input, binary, collect json.RawMessage, starlark bool) (Input, error) {
	if binary != nil {
		if binary[0] != '{' || json.Unmarshal(binary, &in.Binary) != nil {
			return Input{}, errors.New(`"binary" must be an object of names to base64 strings`)
		}
	}
	if collect != nil {
		if collect[0] != '[' || json.Unmarshal(collect, &in.Collect) != nil {
			return Input{}, errors.New(`"collect" must be an array of patterns`)
		}
	}
	return in, CheckInput(in, starlark)
}
