package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	expect "github.com/synapse-lang/synapse-isolation/isolation/container/runner/judge"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// A mode is what a judge's request's role changes in the one loop over
// its tests (runTests): what a test's process gets besides the program
// and its limits, how it runs, and what becomes of its stdout. modeOf
// picks it, the one switch on the role.
type mode interface {
	// grader names the grader whose own run this is, "the checker" or
	// "the interactor"; "" in the program's. A grader's limits are its
	// own, with no language's time factor (testLimits).
	grader() string
	// prepare readies test i's process from spec: its stdin, its files'
	// paths after its arguments, where its stdout goes as it is written;
	// or says why the test will not run (prepared.skip). A failure of
	// the runner's own is the response to give instead, what it took
	// released already.
	prepare(i int, t *protocol.Test, spec startSpec) (prepared, *protocol.Response)
	// run runs test i's process under its limits to its end (step); a
	// test that never started returns why (the other side ended first,
	// or ctx did).
	run(ctx context.Context, g *guard, spec startSpec, i int, wall, cpu time.Duration) (stepRun, error)
	// took does with test i's stdout, its processes all gone, what the
	// mode does, into res: compares it, sends it to the checker, notes a
	// stop at the other side's end. A failure of the runner's own is the
	// response to give instead.
	took(i int, res *protocol.TestResult, s stepRun) *protocol.Response
}

// prepared is a test's process as its mode made it ready: its spec, and
// what releases what it holds once the test is done. skip, when set, is
// why the test will not run: not its to run (notRun: the other side
// ended before it), or a failure of its own before it could start (the
// checker's files did not fit /tmp).
type prepared struct {
	spec    startSpec
	release func()
	skip    *protocol.Error
	notRun  bool
}

// modeOf is the mode of a request whose role is role, compare its
// compare mode, data what follows the request on stdin, r the
// responder that writes frames to the host.
func modeOf(role protocol.Role, compare string, data io.Reader, r *responder) mode {
	switch role {
	case protocol.RoleChecked:
		return &checkedMode{out: r, spool: &checkedOutput{left: limits.MaxCheckedTotal}}
	case protocol.RoleCheck:
		return checkMode{data: data}
	case protocol.RoleInteractive:
		return &liveMode{r: r, data: data, other: "the interactor", stop: true}
	case protocol.RoleInteract:
		return &liveMode{r: r, data: data, other: "the program", files: true}
	}
	return &compareMode{compare: compare}
}

// stepped is the run of a mode whose test is one step, begun at once.
type stepped struct{}

func (stepped) run(ctx context.Context, g *guard, spec startSpec, _ int, wall, cpu time.Duration) (stepRun, error) {
	return step(ctx, g, spec, wall, cpu), nil
}

// withStdin is spec with test t's stdin, a memfd (memfdWith) the runner
// holds no copy of; release closes it.
func withStdin(t *protocol.Test, spec startSpec) (prepared, *protocol.Response) {
	stdin, err := memfdWith(t.Stdin)
	if err != nil {
		r := failure(protocol.ErrInternal, fmt.Sprintf("test %q: stdin: %v", t.Name, err))
		return prepared{}, &r
	}
	t.Stdin = nil // in the file now; the runner need not keep it
	spec.stdin, spec.tee = stdin, nil
	return prepared{spec: spec, release: func() { stdin.Close() }}, nil
}

// compareMode compares each test's stdout with its expected output as
// the program writes it (matcherFor), under the request's compare mode;
// a test without one is not compared.
type compareMode struct {
	stepped
	compare string
	m       matcher // the running test's; nil: nothing to compare
}

func (*compareMode) grader() string { return "" }

func (c *compareMode) prepare(_ int, t *protocol.Test, spec startSpec) (prepared, *protocol.Response) {
	p, failed := withStdin(t, spec)
	c.m = nil
	if failed == nil && t.Expect != nil {
		c.m = matcherFor(t.Expect, c.compare)
		p.spec.tee = c.m
	}
	return p, failed
}

// took compares a test that exited 0 within its limits: its match, and
// where it differs, the first line that does.
func (c *compareMode) took(_ int, res *protocol.TestResult, _ stepRun) *protocol.Response {
	if c.m != nil && res.Error == nil {
		matched := c.m.Match()
		res.Match = &matched
		if !matched {
			res.Line = c.m.Line()
		}
	}
	c.m = nil
	return nil
}

// matcher compares a test's output, written to it as the program writes
// it, with the expected output: an expect.Matcher, or an expect.Float.
type matcher interface {
	io.Writer
	Match() bool
	Line() int64
}

// matcherFor is the matcher of want under a request's compare mode,
// which the request's decoding checked.
func matcherFor(want []byte, mode string) matcher {
	c, _ := protocol.ParseCompare(mode)
	if c.Mode == protocol.CompareFloat {
		return expect.NewFloat(want, c.Abs, c.Rel)
	}
	return expect.NewMatcher(want, expect.Mode(c.Mode))
}

// nullStdin is spec with /dev/null for stdin, which release closes.
func nullStdin(spec startSpec) (prepared, error) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		return prepared{}, err
	}
	spec.stdin = null
	return prepared{spec: spec, release: func() { null.Close() }}, nil
}
