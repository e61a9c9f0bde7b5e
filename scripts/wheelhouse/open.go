package main

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"syscall"
)

// openRegular opens path to read it, not through a link and without
// waiting on a FIFO, and judges what it opened by its descriptor: a name
// checked before the open could be swapped for another file after it.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s: not a regular file (%v)", path, fi.Mode().Type())
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// wheelFile is a wheel open to read: the bytes read from it are the
// bytes whose SHA-256 the requirements line lists, being read through
// the descriptor that was hashed.
type wheelFile struct {
	*zip.Reader
	f *os.File
}

func (w wheelFile) Close() error { return w.f.Close() }

// openWheel opens c's wheel, checks its SHA-256 is one its line lists,
// and reads its zip directory within directory bytes.
func openWheel(c choice, directory int64) (wheelFile, error) {
	f, fi, err := openRegular(c.path)
	if err != nil {
		return wheelFile{}, err
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		f.Close()
		return wheelFile{}, err
	}
	if sum := hex.EncodeToString(h.Sum(nil)); !slices.Contains(c.req.hashes, sum) {
		f.Close()
		return wheelFile{}, fmt.Errorf("has sha256:%s now, which the line does not list", sum)
	}
	budget := &directoryBudget{r: f, left: directory + directorySlack}
	zr, err := zip.NewReader(budget, fi.Size())
	if errors.Is(err, errDirectory) {
		err = fmt.Errorf("its zip directory is over %d KiB", directory>>10)
	}
	if err != nil {
		f.Close()
		return wheelFile{}, err
	}
	budget.lifted = true
	return wheelFile{Reader: zr, f: f}, nil
}

// directorySlack is what archive/zip reads beside the directory: the
// end record, searched for in the last 64 KiB, and a read-ahead buffer.
const directorySlack = 128 << 10

var errDirectory = errors.New("zip directory over its bound")

// directoryBudget bounds the bytes archive/zip reads while it parses a
// zip's directory, every entry of which it keeps: without it a wheel of
// empty members would grow memory with its file's size. The members are
// read through it too, once lifted.
type directoryBudget struct {
	r      io.ReaderAt
	left   int64
	lifted bool
}

func (d *directoryBudget) ReadAt(p []byte, off int64) (int, error) {
	if !d.lifted {
		if int64(len(p)) > d.left {
			return 0, errDirectory
		}
		d.left -= int64(len(p))
	}
	return d.r.ReadAt(p, off)
}
