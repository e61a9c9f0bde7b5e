package main

import (
	"fmt"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// checkedMode compares no test: each test's stdout is kept as the
// program writes it (spool), and a test that exited 0 within its limits
// sends it to the host (out) as an output frame once its processes are
// all gone, for the checker to grade.
type checkedMode struct {
	stepped
	out   framer
	spool *checkedOutput
}

func (*checkedMode) grader() string { return "" }

func (c *checkedMode) prepare(_ int, t *protocol.Test, spec startSpec) (prepared, *protocol.Response) {
	p, failed := withStdin(t, spec)
	c.spool.begin()
	p.spec.tee = c.spool
	return p, failed
}

// took sends a test's output frame, only now: step killed and reaped all
// the test started. Its result says how much the frame carried.
func (c *checkedMode) took(i int, res *protocol.TestResult, _ stepRun) *protocol.Response {
	if res.Error != nil {
		return nil
	}
	if err := c.spool.send(c.out, i); err != nil {
		f := failure(protocol.ErrInternal, fmt.Sprintf("test %q: its output for the checker: %v", res.Name, err))
		return &f
	}
	res.CheckedBytes = c.spool.sent()
	return nil
}

// framer writes a test's output frame: the responder, which keeps frames
// and the response apart.
type framer interface {
	frame(i int, b []byte) error
}

// checkedOutput keeps a checked request's test stdout for its checker, as
// the program writes it: the whole of it up to limits.MaxCheckedOutput,
// and all tests' together up to limits.MaxCheckedTotal (left), the rest
// counted and dropped. It holds one test's at a time, in the runner's
// memory (the container's: the bound is what the program's memory must
// leave it), and never fails a write, so the program's stdout never
// blocks on it.
type checkedOutput struct {
	b    []byte
	left int64 // of limits.MaxCheckedTotal, for the tests to come
	last int64 // what the last send sent
}

// begin starts a test's output.
func (c *checkedOutput) begin() { c.b = c.b[:0] }

// Write keeps what fits.
func (c *checkedOutput) Write(p []byte) (int, error) {
	room := min(int64(limits.MaxCheckedOutput), c.left) - int64(len(c.b))
	if room > 0 {
		c.b = append(c.b, p[:min(int64(len(p)), room)]...)
	}
	return len(p), nil
}

// send writes what was kept as test i's output frame to out, and lets
// it go.
func (c *checkedOutput) send(out framer, i int) error {
	c.last = int64(len(c.b))
	c.left -= c.last
	err := out.frame(i, c.b)
	c.b = nil
	return err
}

// sent is the size of the last frame sent.
func (c *checkedOutput) sent() *int64 {
	n := c.last
	return &n
}
