package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// writeFiles writes res's returned files into dir, for an ok or
// program_error verdict, through a confined handle (os.Root: no name
// leaves dir, through a link or otherwise), each created fresh unless
// force replaces an entry of that name (the entry itself, never where a
// link points), mode 0644; it says on w what it wrote. A file that cannot
// be written is the operator's error (exit 2, as a rejection): the
// directory, what it already holds and its file system are theirs; the
// result itself was delivered.
func writeFiles(w io.Writer, dir string, force bool, res isolation.Result) error {
	if dir == "" || (res.Verdict != protocol.OK && res.Verdict != protocol.ProgramError) {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return notWritten(fmt.Errorf("--output-dir: %w", err))
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return notWritten(fmt.Errorf("--output-dir: %w", err))
	}
	defer root.Close()
	for _, name := range slices.Sorted(maps.Keys(res.Files)) {
		// The host checked every name (a plain one) and every file's
		// bytes against its size and SHA-256 when the response came.
		if f := res.Files[name]; f.Error == "" {
			if err := writeOne(root, name, f.Data, force); err != nil {
				return notWritten(fmt.Errorf("--output-dir %s: %s: %w", dir, name, err))
			}
			// The name is the program's choice, the directory may hold an id.
			fmt.Fprintf(w, "synapse-isolation: wrote %s (%d bytes) into %s\n", oneLine(name), len(f.Data), oneLine(dir))
		}
	}
	return nil
}

// writeOne creates name in root, fresh.
func writeOne(root *os.Root, name string, data []byte, force bool) error {
	const flags = os.O_WRONLY | os.O_CREATE | os.O_EXCL
	f, err := root.OpenFile(name, flags, 0o644)
	if errors.Is(err, fs.ErrExist) && force {
		if err = root.Remove(name); err == nil {
			f, err = root.OpenFile(name, flags, 0o644)
		}
	}
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("exists (--force replaces it)")
	}
	if err != nil {
		return err
	}
	if _, err = f.Write(data); err == nil {
		err = f.Chmod(0o644) // whatever the umask
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// notWritten is the refusal of files that could not go where the
// operator said: theirs to fix, never the engine's or the program's.
func notWritten(err error) error { return &rejected{err: err} }
