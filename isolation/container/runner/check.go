package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// checkMode is a check's (protocol.RoleCheck): the checker (the
// request's source) runs once per test as `checker INPUT OUTPUT ANSWER`,
// three files the runner writes from the test's data as it reads it
// (data), in a directory of their own, removed after, its stdin empty.
// Its limits are the request's --test-timeout and --cpu-time, which the
// host sets to the checker's own. Its exit is its test's result; the
// host grades by it.
type checkMode struct {
	stepped
	data io.Reader
}

func (checkMode) grader() string { return "the checker" }

// prepare reads test t's three files from the data. Files that do not
// fit /tmp fail the test's check, never the program: the result says so,
// and the host grades that a judge's failure. Data that ends short is
// the runner's failure to read its request.
func (c checkMode) prepare(_ int, t *protocol.Test, spec startSpec) (prepared, *protocol.Response) {
	dir, paths, werr := testFiles(*t, c.data)
	removeDir := func() {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	if _, ok := werr.(readError); ok {
		removeDir()
		r := failure(protocol.ErrRequest, werr.Error())
		return prepared{}, &r
	}
	if werr != nil {
		skip := &protocol.Error{Type: protocol.ErrInternal, Message: fmt.Sprintf("test %q: the checker's files: %v", t.Name, werr)}
		return prepared{spec: spec, release: removeDir, skip: skip}, nil
	}
	p, err := nullStdin(spec)
	if err != nil {
		removeDir()
		r := failure(protocol.ErrInternal, "checker: "+err.Error())
		return prepared{}, &r
	}
	p.spec.argv = append(spec.argv[:len(spec.argv):len(spec.argv)], paths[:]...)
	closeNull := p.release
	p.release = func() { closeNull(); removeDir() }
	return p, nil
}

func (checkMode) took(int, *protocol.TestResult, stepRun) *protocol.Response { return nil }

// readError is a failure to read the request's own data: the host sent
// less than it announced.
type readError struct{ error }

// testFiles writes test t's input, program output and expected output,
// read from data in the wire's order (input, expected output, output),
// to the files input, output and answer of a new directory, read-only,
// and returns their paths in testlib's order. A file that cannot be
// written has the rest of its bytes read and dropped, so the next test's
// data stays in step.
func testFiles(t protocol.Test, data io.Reader) (dir string, paths [3]string, err error) {
	dir, err = os.MkdirTemp(os.TempDir(), "check-")
	if err != nil {
		return "", paths, skipData(t, data, err)
	}
	paths = [3]string{filepath.Join(dir, "input"), filepath.Join(dir, "output"), filepath.Join(dir, "answer")}
	var want int64
	if t.ExpectBytes != nil {
		want = *t.ExpectBytes
	}
	parts := []struct {
		path string
		n    int64
	}{{paths[0], t.StdinBytes}, {paths[2], want}, {paths[1], *t.OutputBytes}}
	for k, p := range parts {
		if err = copyFile(p.path, data, p.n); err != nil {
			if _, ok := err.(readError); ok {
				return dir, paths, err
			}
			for _, q := range parts[k+1:] {
				if _, rerr := io.CopyN(io.Discard, data, q.n); rerr != nil {
					return dir, paths, readError{fmt.Errorf("test %q: reading its data: %w", t.Name, rerr)}
				}
			}
			return dir, paths, err
		}
	}
	return dir, paths, nil
}

// skipData reads and drops test t's data, and returns why (err), or a
// readError if the data ran short.
func skipData(t protocol.Test, data io.Reader, why error) error {
	n := t.StdinBytes + *t.OutputBytes
	if t.ExpectBytes != nil {
		n += *t.ExpectBytes
	}
	if _, err := io.CopyN(io.Discard, data, n); err != nil {
		return readError{fmt.Errorf("test %q: reading its data: %w", t.Name, err)}
	}
	return why
}

// copyFile writes the next n bytes of data to a new read-only file at
// path. The n bytes are read whatever the file does, so the data stays
// in step; data that ends short is a readError.
func copyFile(path string, data io.Reader, n int64) error {
	src := &countedReader{r: io.LimitReader(data, n)}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o400)
	if err == nil {
		_, err = io.Copy(f, src)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if _, rerr := io.Copy(io.Discard, src); rerr != nil || src.n < n {
		return readError{fmt.Errorf("%d of %d bytes: %w", src.n, n, io.ErrUnexpectedEOF)}
	}
	return err
}

// countedReader counts what it read.
type countedReader struct {
	r io.Reader
	n int64
}

func (c *countedReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
