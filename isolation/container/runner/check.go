package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/runargs"
)

// checkRun runs a check (protocol.RoleCheck): the checker (the
// request's source) compiled once where its language compiles, then once
// per test as `checker INPUT OUTPUT ANSWER`, three files the runner
// writes from the test's data as it reads it (data), in a directory of
// their own, removed after. Each run is a step: its own wall-clock and
// CPU-time limits (the request's --test-timeout and --cpu-time, which the
// host sets to the checker's own; no time factor: the limits are the
// checker's, not a program's), everything it started killed and reaped
// after. Its exit is its test's result; the host grades by it.
func checkRun(ctx context.Context, cfg runargs.Args, req protocol.Request, data io.Reader, g *guard) protocol.Response {
	b, end := build(ctx, cfg, req, g, "the checker")
	defer b.close()
	if end != nil {
		return *end
	}
	resp, budget := b.resp, b.budget
	null, err := os.Open(os.DevNull)
	if err != nil {
		return failure(protocol.ErrInternal, "checker: "+err.Error())
	}
	defer null.Close()
	spec := startSpec{argv: b.argv, dir: b.w.dir, stdin: null, threads: cfg.Threads, program: b.prog,
		keep: max(budget/len(req.Tests), minTestKeep)}
	runs := make([]testRun, len(req.Tests))
	for i, t := range req.Tests {
		if failed := checkTest(ctx, cfg, t, data, spec, g, &runs[i]); failed != nil {
			return *failed
		}
	}
	resp.Tests, resp.OK = shareOutput(runs, budget), true
	resp.Usage = g.cpu.usage(nil)
	return resp
}

// checkTest reads test t's three files from data and runs the checker
// on them (spec, with their paths after its arguments) into run; a
// failure of the runner's own is the response to give instead. Files
// that do not fit /tmp fail the test's check, never the program: the
// result says so, and the host grades that a judge's failure.
func checkTest(ctx context.Context, cfg runargs.Args, t protocol.Test, data io.Reader, spec startSpec, g *guard, run *testRun) *protocol.Response {
	run.result.Name = t.Name
	dir, paths, werr := testFiles(t, data)
	if dir != "" {
		defer os.RemoveAll(dir)
	}
	if werr != nil {
		if _, ok := werr.(readError); ok {
			r := failure(protocol.ErrRequest, werr.Error())
			return &r
		}
		run.result.Verdict = protocol.TestProgramError
		run.result.Error = &protocol.Error{Type: protocol.ErrInternal, Message: fmt.Sprintf("test %q: the checker's files: %v", t.Name, werr)}
		return nil
	}
	left := time.Until(deadlineOf(ctx))
	if left <= 0 {
		run.result.Verdict, run.result.NotRun = protocol.TestTimeout, true
		run.result.Error = &protocol.Error{Type: protocol.ErrTimeout, Message: fmt.Sprintf("not run: the check's deadline of %s came first", cfg.Timeout)}
		return nil
	}
	wall := min(cfg.TestTimeout, left)
	if cfg.TestTimeout <= 0 {
		wall = left
	}
	run.result.TimeLimitMS, run.result.CPUTimeLimitMS = wall.Milliseconds(), cfg.CPUTime.Milliseconds()
	spec.argv = append(spec.argv[:len(spec.argv):len(spec.argv)], paths[:]...)
	r := step(ctx, g, spec, wall, cfg.CPUTime)
	if r.failed != nil {
		return r.failed
	}
	run.stdout, run.stderr = r.stdout, r.stderr
	run.result.Step = r.step(2 * spec.keep)
	run.result.Verdict = verdictOf(run.result.Step, nil)
	return nil
}

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
