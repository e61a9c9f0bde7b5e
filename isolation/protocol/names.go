package protocol

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// MaxFiles bounds a request's files: the program has 64 open files in
// all (limits.NoFile), its interpreter's own and its standard streams
// among them, so a program that opens every file it was given at once
// still has room.
const MaxFiles = 32

// MaxNameBytes bounds a file's name, as the kernel's NAME_MAX does.
const MaxNameBytes = 255

// ProgramName is the name of the source's own file in the program's
// working directory in exec mode, where the runner writes the source for
// the interpreter to read; no file of the request may take it, in either
// mode, so a request is valid or not whatever runs it.
const ProgramName = "main"

// CheckName applies a file name's rules: a plain name in the working
// directory, never a path: not empty, no "/", no "..", no NUL or other
// control character, no leading "-" (it would read as an option on a
// command line), at most MaxNameBytes, valid UTF-8, and not ProgramName.
func CheckName(name string) error {
	switch {
	case name == "":
		return errors.New("file name: must not be empty")
	case strings.Contains(name, "/"):
		return fmt.Errorf("file name %q: must be a plain name, without /", name)
	case name == "." || strings.Contains(name, ".."):
		return fmt.Errorf("file name %q: must be a plain name, without ..", name)
	case strings.HasPrefix(name, "-"):
		return fmt.Errorf("file name %q: must not begin with -", name)
	case strings.IndexFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0:
		return fmt.Errorf("file name %q: must not hold a NUL or another control character", name)
	case len(name) > MaxNameBytes:
		return fmt.Errorf("file name %.40q...: longer than %d bytes", name, MaxNameBytes)
	case !utf8.ValidString(name):
		return fmt.Errorf("file name %q: invalid UTF-8", name)
	case name == ProgramName:
		return fmt.Errorf("file name %q: taken by the program's own source in exec mode", name)
	}
	return nil
}

// sortedNames are the names of files in order, so every refusal and
// every encoding is the same for the same request.
func sortedNames(files map[string]string) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
