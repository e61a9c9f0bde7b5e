// Package spool keeps a checked request's test outputs on the host, in
// files of a private directory, from the program's run until its checker
// ran: one file per test that sent an output frame, no more than the
// frame announced (frames.Sink), none of it in memory.
package spool

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

// Spool is a directory of test outputs. Its methods may be called from
// any goroutine.
type Spool struct {
	dir string

	mu    sync.Mutex
	sizes map[int]int64 // the frames written whole, by test index
}

// New makes a spool in a new directory only its owner can read.
func New() (*Spool, error) {
	dir, err := os.MkdirTemp("", "synapse-checked-")
	if err != nil {
		return nil, fmt.Errorf("keeping the outputs for the checker: %w", err)
	}
	return &Spool{dir: dir, sizes: map[int]int64{}}, nil
}

// Remove removes the spool's directory and all in it.
func (s *Spool) Remove() error { return os.RemoveAll(s.dir) }

func (s *Spool) path(test int) string { return filepath.Join(s.dir, strconv.Itoa(test)) }

// Open makes test's file for a frame of size bytes; it counts once
// closed with all of them written.
func (s *Spool) Open(test int, size int64) (io.WriteCloser, error) {
	f, err := os.OpenFile(s.path(test), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	return &file{f: f, s: s, test: test, size: size}, nil
}

// Size is test's output size, and whether a whole frame of it came.
func (s *Spool) Size(test int) (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.sizes[test]
	return n, ok
}

// CopyTo writes test's output to w.
func (s *Spool) CopyTo(w io.Writer, test int) error {
	f, err := os.Open(s.path(test))
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// file is a frame being written: never more than its size.
type file struct {
	f       *os.File
	s       *Spool
	test    int
	size, n int64
}

func (w *file) Write(p []byte) (int, error) {
	if w.n+int64(len(p)) > w.size {
		return 0, fmt.Errorf("test %d's output: more than the %d bytes announced", w.test, w.size)
	}
	n, err := w.f.Write(p)
	w.n += int64(n)
	return n, err
}

func (w *file) Close() error {
	if err := w.f.Close(); err != nil {
		return err
	}
	if w.n == w.size {
		w.s.mu.Lock()
		w.s.sizes[w.test] = w.n
		w.s.mu.Unlock()
	}
	return nil
}
