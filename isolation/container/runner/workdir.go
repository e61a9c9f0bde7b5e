package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// workDirName is the program's working directory in the temporary
// directory: /tmp/work in a container, whose /tmp is fresh, so a path in a
// traceback is the same on every run. Outside one (the runner's tests) the
// temporary directory is $TMPDIR's.
const workDirName = "work"

// workDir is what exec mode puts in place before the interpreter starts:
// the working directory with the request's files and the source, and the
// program's standard input.
type workDir struct {
	dir    string
	source string   // the source's file, protocol.ProgramName in dir
	stdin  *os.File // an unlinked file holding the request's stdin, at its start
}

// prepare makes the working directory, fresh (it must not exist), writes
// the request's files into it by name and the source beside them, named
// name (protocol.ProgramName, or a language's own), and
// writes stdin to a file it unlinks once open, so the program reads it
// like a redirect from a file (seekable, at end-of-file at once when
// empty) and no pipe or goroutine waits on a program that never reads it.
// All of it is in /tmp, so it counts against /tmp's size, as what the
// program writes does.
func prepare(req protocol.Request, name string) (*workDir, error) {
	base := os.TempDir()
	w := &workDir{dir: filepath.Join(base, workDirName)}
	if err := os.Mkdir(w.dir, 0o700); err != nil {
		return nil, fmt.Errorf("working directory: %w", err)
	}
	// The names were checked by the request's decoder (plain names, none
	// of them the source's); O_EXCL holds them to it here too.
	for name, content := range req.Files {
		if err := writeNew(filepath.Join(w.dir, name), content); err != nil {
			return nil, fmt.Errorf("file %q: %w", name, err)
		}
	}
	for name, content := range req.Binary {
		if err := writeNew(filepath.Join(w.dir, name), string(content)); err != nil {
			return nil, fmt.Errorf("file %q: %w", name, err)
		}
	}
	w.source = filepath.Join(w.dir, name)
	if err := writeNew(w.source, req.Source); err != nil {
		return w, fmt.Errorf("source %s: %w", name, err)
	}
	f, err := unlinkedFile([]byte(req.Stdin))
	if err != nil {
		return w, fmt.Errorf("stdin: %w", err)
	}
	w.stdin = f
	return w, nil
}

// writeNew writes a file that must not exist yet.
func writeNew(path, content string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// close closes the runner's own descriptor of stdin once the program has
// its own.
func (w *workDir) close() {
	if w != nil && w.stdin != nil {
		w.stdin.Close()
	}
}

// programArgv is the interpreter's command line with the source's path
// in it: in place of its first argument that is exactly "-" (the "read
// the program from stdin" of python3, node, ruby, perl, lua...), or, if it
// has none, as its last argument (sh, python3 -I, or a probe reading the
// file it is given).
func programArgv(argv []string, path string) []string {
	out := append([]string(nil), argv...)
	for i := 1; i < len(out); i++ {
		if out[i] == "-" {
			out[i] = path
			return out
		}
	}
	return append(out, path)
}
