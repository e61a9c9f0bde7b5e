package source

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// ErrTooLarge is what every refusal of a request over the size limit is
// (errors.Is), however the source arrived.
var ErrTooLarge = errors.New("request too large")

// tooLargeError is the one message of a request over the size limit: the
// program's own size and its encoded size where they are known, and the
// bound.
type tooLargeError struct {
	program int64 // -1: reading stopped at the bound, before the end
	encoded int   // -1: never encoded
}

// OverLimit is the refusal of a frame or a source whose reading stopped at
// the bound: more than the limit, its sizes unknown.
func OverLimit() error { return &tooLargeError{program: -1, encoded: -1} }

func (e *tooLargeError) Is(target error) bool { return target == ErrTooLarge }

func (e *tooLargeError) Error() string {
	switch {
	case e.program >= 0 && e.encoded >= 0:
		return fmt.Sprintf("request: the program is %d bytes, %d bytes encoded, over the limit of %d", e.program, e.encoded, limits.MaxRequestBytes)
	case e.program >= 0:
		// Encoding never shrinks a source: this request is over the limit.
		return fmt.Sprintf("request: the program is %d bytes, over the limit of %d", e.program, limits.MaxRequestBytes)
	}
	return fmt.Sprintf("request: more than %d bytes encoded, the limit", limits.MaxRequestBytes)
}

// Read reads a program's source from r, at most the request limit plus
// one byte, so an oversized source is refused without being read whole,
// with the one message of a request over the limit; when r is a regular
// file (--file, or stdin redirected from one) that message says its size.
// The source's other rules are Check's.
func Read(r io.Reader) (string, error) {
	left := remaining(r)
	b, err := io.ReadAll(io.LimitReader(r, limits.MaxRequestBytes+1))
	if err != nil {
		return "", err
	}
	if len(b) > limits.MaxRequestBytes {
		if left <= limits.MaxRequestBytes { // not a file, or it changed under us
			return "", OverLimit()
		}
		return "", &tooLargeError{program: left, encoded: -1}
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
