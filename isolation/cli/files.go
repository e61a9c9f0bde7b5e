package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"sort"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// filesOptions are what a run returns beside its output: --collect
// PATTERN, repeatable, and where the CLI writes what came back,
// --output-dir DIR and --force.
type filesOptions struct {
	collect   cli.StringSlice
	outputDir string
	force     bool
}

func (o *filesOptions) flags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "collect", Usage: "return the files of the program's working directory that `PATTERN` names once it " +
			"ended: a plain name or a glob over names (*.csv); repeatable, at most 32 files, within the response's 1 MiB; each " +
			"whole or an error entry (a link, FIFO, directory or file too large is never read)", Destination: &o.collect},
		&cli.StringFlag{Name: "output-dir", Usage: "write the returned files into `DIR` (made if missing), after an ok or " +
			"program_error verdict, by name, mode 0644, never through a link", TakesFile: true, Destination: &o.outputDir},
		&cli.BoolFlag{Name: "force", Usage: "--output-dir: replace a file of the same name (else it is an error)", Destination: &o.force},
	}
}

// check refuses, before anything runs, patterns a request cannot carry
// and an output directory that is not one.
func (o *filesOptions) check(c *cli.Context) error {
	for _, p := range o.collect.Value() {
		if err := protocol.CheckPattern(p); err != nil {
			return rejectf("--%w", err)
		}
	}
	if o.force && o.outputDir == "" {
		return rejectf("--force: only with --output-dir")
	}
	if o.outputDir == "" {
		return nil
	}
	if len(o.collect.Value()) == 0 {
		return rejectf("--output-dir: nothing to write without --collect")
	}
	if fi, err := os.Stat(o.outputDir); err == nil && !fi.IsDir() {
		return rejectf("--output-dir %s: not a directory", o.outputDir)
	}
	return nil
}

// patterns are the request's Collect: nil when none was given.
func (o *filesOptions) patterns() []string {
	if v := o.collect.Value(); len(v) > 0 {
		return slices.Clone(v)
	}
	return nil
}

// writeFiles writes res's returned files into dir, for an ok or
// program_error verdict, through a confined handle (os.Root: no name
// leaves dir, through a link or otherwise), each created fresh unless
// force replaces an entry of that name (the entry itself, never where a
// link points), mode 0644; it says on w what it wrote. A file that cannot
// be written is the tool's failure: the result was not delivered.
func writeFiles(w io.Writer, dir string, force bool, res isolation.Result) error {
	if dir == "" || (res.Verdict != isolation.OK && res.Verdict != isolation.ProgramError) {
		return nil
	}
	names := make([]string, 0, len(res.Files))
	for name, f := range res.Files {
		if f.Error == "" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return writeFailed(fmt.Errorf("--output-dir: %w", err))
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return writeFailed(fmt.Errorf("--output-dir: %w", err))
	}
	defer root.Close()
	for _, name := range names {
		// The host checked every name (a plain one) and every file's
		// bytes against its size and SHA-256 when the response came.
		if err := writeOne(root, name, res.Files[name].Data, force); err != nil {
			return writeFailed(fmt.Errorf("--output-dir %s: %s: %w", dir, name, err))
		}
		fmt.Fprintf(w, "synapse-isolation: wrote %s (%d bytes) into %s\n", name, len(res.Files[name].Data), dir)
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
