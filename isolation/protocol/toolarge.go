package protocol

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// ErrTooLarge is what every refusal of a request over the size limit is
// (errors.Is), however its parts arrived.
var ErrTooLarge = errors.New("request too large")

// tooLargeError is the one message of a request over the size limit: the
// program's own size, the sizes of its stdin and files when it has any,
// and its encoded size where they are known, and the bound.
type tooLargeError struct {
	program int64 // -1: reading stopped at the bound, before the end
	encoded int   // -1: never encoded
	parts   []part
	// part names what was being read when reading stopped at the bound:
	// "" for the program, "stdin", or `file "NAME"`.
	part string
}

// part is one part of a request beside the source, and its size.
type part struct {
	name  string
	bytes int
}

// sizes lists r's stdin and files, with their sizes, for the message.
func sizes(r Request) []part {
	var ps []part
	if r.Stdin != "" {
		ps = append(ps, part{"stdin", len(r.Stdin)})
	}
	for _, n := range sortedNames(r.Files) {
		ps = append(ps, part{fmt.Sprintf("file %q", n), len(r.Files[n])})
	}
	names := make([]string, 0, len(r.Binary))
	for n := range r.Binary {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		ps = append(ps, part{fmt.Sprintf("file %q", n), len(r.Binary[n])})
	}
	return ps
}

// overLimit is the refusal of a frame whose reading stopped at the bound:
// more than the limit, its sizes unknown.
func overLimit() error { return &tooLargeError{program: -1, encoded: -1} }

func (e *tooLargeError) Is(target error) bool { return target == ErrTooLarge }

func (e *tooLargeError) Error() string {
	switch {
	case e.program >= 0 && e.encoded >= 0 && len(e.parts) > 0:
		var b strings.Builder
		fmt.Fprintf(&b, "request: the program is %d bytes", e.program)
		for _, p := range e.parts {
			fmt.Fprintf(&b, ", %s %d", p.name, p.bytes)
		}
		fmt.Fprintf(&b, "; %d bytes encoded, over the limit of %d", e.encoded, limits.MaxRequestBytes)
		return b.String()
	case e.program >= 0 && e.encoded >= 0:
		return fmt.Sprintf("request: the program is %d bytes, %d bytes encoded, over the limit of %d", e.program, e.encoded, limits.MaxRequestBytes)
	case e.program >= 0:
		// Encoding never shrinks a part: this request is over the limit.
		what := "the program"
		if e.part != "" {
			what = e.part
		}
		return fmt.Sprintf("request: %s is %d bytes, over the limit of %d", what, e.program, limits.MaxRequestBytes)
	case e.part != "":
		return fmt.Sprintf("request: %s is more than %d bytes, over the limit of %d", e.part, limits.MaxRequestBytes, limits.MaxRequestBytes)
	}
	return fmt.Sprintf("request: more than %d bytes encoded, over the limit of %d", limits.MaxRequestBytes, limits.MaxRequestBytes)
}

// Read reads a program's source from r (ReadPart).
func Read(r io.Reader) (string, error) { return ReadPart(r, "") }

// ReadPart reads one part of a request from r, at most the request limit
// plus one byte, so an oversized part is refused without being read
// whole, with the one message of a request over the limit naming the
// part: "" for the program, "stdin", or `file "NAME"`; when r is a
// regular file (--file, --stdin FILE, --from-file, or stdin redirected
// from one) that message says its size. The part's other rules are
// EncodeRequest's.
func ReadPart(r io.Reader, name string) (string, error) {
	left := remaining(r)
	b, err := io.ReadAll(io.LimitReader(r, limits.MaxRequestBytes+1))
	if err != nil {
		return "", err
	}
	if len(b) > limits.MaxRequestBytes {
		if left <= limits.MaxRequestBytes { // not a file, or it changed under us
			return "", &tooLargeError{program: -1, encoded: -1, part: name}
		}
		return "", &tooLargeError{program: left, encoded: -1, part: name}
	}
	return string(b), nil
}

// remaining is how many bytes are left to read in r when it is a regular
// file, from its offset to its end; -1 when that is not known.
func remaining(r io.Reader) int64 {
	f, ok := r.(interface {
		Stat() (fs.FileInfo, error)
		Seek(offset int64, whence int) (int64, error)
	})
	if !ok {
		return -1
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return -1
	}
	at, err := f.Seek(0, io.SeekCurrent)
	if err != nil || at > fi.Size() {
		return -1
	}
	return fi.Size() - at
}
