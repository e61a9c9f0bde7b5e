package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/batchline"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// batchOptions are batch's flags: run's options but --name, and how to
// read the requests and write the results.
type batchOptions struct {
	sandbox  sandboxOptions
	parallel int
	idle     limits.Duration
	contexts cli.StringSlice
	input    string
	ordered  bool
	failFast bool
	// outputDir and force: where each line's collected files go, a
	// subdirectory per line (its id when that is a plain name).
	outputDir string
	force     bool
}

func batchCommand() *cli.Command {
	var o batchOptions
	return &cli.Command{
		Name:  "batch",
		Usage: "run JSON Lines requests, each in its own fresh container, from a warm pool; one result line each",
		ArgsUsage: "[-- CMD ARGS...]  (an interpreter in the image, as for run)\n\n" +
			`   Each input line is {"id": <string or number, optional>, "source": "..."}, with "stdin", "files"` + "\n" +
			`   ({"NAME": "text" or {"base64": "..."}}), "collect" (["PATTERN", ...]), "tests" ([{"name": "...", "stdin": "...",` + "\n" +
			`   "expect": "..."}], as run's --test, within the line) and "compare" if needed; each output line is the` + "\n" +
			`   object run prints plus "id" (null without one) and "line". An id may not repeat an earlier line's.` + "\n" +
			`   A summary goes to stderr.`,
		Description: "Each request's --timeout counts from its arrival.\n\n" + batchParallelText + "\n\nExit status: " + batchExitText(),
		Flags: append(o.sandbox.flags(),
			&cli.IntFlag{Name: "parallel", Usage: "at most `N` containers at once, ready or running", DefaultText: "the engine's CPU count, at most 64",
				Destination: &o.parallel},
			durationFlag(&o.idle, "idle", limits.DefaultIdle, "a ready container waiting longer than `DURATION` ends on its own"),
			&cli.StringSliceFlag{Name: "context", Usage: "docker CLI context `NAME`; repeat to spread over several engines", Destination: &o.contexts},
			&cli.StringFlag{Name: "input", Usage: "read requests from `FILE` instead of stdin", TakesFile: true, Destination: &o.input},
			&cli.BoolFlag{Name: "ordered", Usage: "write results in input order (default: as they complete)", DisableDefaultText: true, Destination: &o.ordered},
			&cli.BoolFlag{Name: "fail-fast", Usage: "stop reading at the first result that is not ok", DisableDefaultText: true, Destination: &o.failFast},
			&cli.StringFlag{Name: "output-dir", Usage: "write the files a line's \"collect\" returned into `DIR`/ID (its id, when a plain name) or DIR/line-N, " +
				"after an ok or program_error verdict, as run --output-dir does", TakesFile: true, Destination: &o.outputDir},
			&cli.BoolFlag{Name: "force", Usage: "--output-dir: replace a file of the same name (else the line is an engine_failure)", Destination: &o.force},
		),
		Action: func(c *cli.Context) error { return runBatch(c, &o) },
	}
}

// runBatch checks the flags, opens the input, starts the pool, runs every
// request and says how the batch ended.
func runBatch(c *cli.Context, o *batchOptions) error {
	ro, err := o.sandbox.options(c)
	if err != nil {
		return err
	}
	if err := o.checkFlags(c, ro); err != nil {
		return asWritten(c, err)
	}
	in, total, closeInput, err := o.openInput(c)
	if err != nil {
		return err
	}
	defer closeInput()
	start := time.Now()
	po := o.poolOptions(c, ro)
	if !c.IsSet("parallel") {
		o.parallel = defaultParallel(c.Context, po)
		po.Parallel = o.parallel
	}
	pool, err := isolation.NewPool(c.Context, po)
	if err != nil {
		return err // exitCode and message read the typed error as they are
	}
	out := newBatchOutput(c.App.Writer, c.App.ErrWriter, o.ordered, o.parallel,
		func(v isolation.Verdict) int { return resultStatus(c.Context, v) })
	out.total = total
	out.outputDir, out.force = o.outputDir, o.force
	s := &scheduler{out: out, pool: pool, failFast: o.failFast, starlark: pool.Exec() == nil, ids: idLines{}}
	readErr := s.run(c.Context, in)
	pool.Drain() // the input is done: start no container nobody will use
	s.wg.Wait()
	closeErr := pool.Close()
	out.summary(time.Since(start))
	return batchEnd(c.Context, out, readErr, closeErr)
}

// checkFlags refuses bad flags before docker is asked anything (the
// engine's CPU count, when --parallel is not given), in the pool's order:
// --parallel, --idle by the pool's own range (limits.CheckIdle), and the
// run's options as the pool checks them too (Options.Check).
func (o *batchOptions) checkFlags(c *cli.Context, ro isolation.Options) error {
	if c.IsSet("parallel") {
		// Written out, 0 is not "the default" (which the pool's zero
		// means): the CLI refuses it with every other value out of range.
		if err := limits.CheckParallel(o.parallel); err != nil {
			return &rejected{err: err}
		}
	}
	if o.idle != 0 {
		if err := limits.CheckIdle(time.Duration(o.idle)); err != nil {
			return &rejected{err: err}
		}
	}
	// The image's declared interpreter is read from the engine only once
	// the pool checked the engine is there and has the image; no other
	// rule of the options depends on it.
	return ro.Check()
}

// openInput is --input, or stdin without it; closeInput is to be called
// once the batch is done with it. total is the number of requests in a
// regular file, for the progress on a terminal (0: not known).
func (o *batchOptions) openInput(c *cli.Context) (in io.Reader, total int, closeInput func(), err error) {
	if o.input == "" {
		return c.App.Reader, 0, func() {}, nil
	}
	f, err := os.Open(o.input)
	if err != nil {
		return nil, 0, nil, rejectf("--input: %w", err)
	}
	if isTerminalWriter(c.App.ErrWriter) {
		total = countRequests(f)
	}
	return f, total, func() { f.Close() }, nil
}

// poolOptions are the pool's: the run's options, one engine per --context
// (the flags' one engine without any), and a line on stderr for an engine
// the pool stops using.
func (o *batchOptions) poolOptions(c *cli.Context, ro isolation.Options) isolation.PoolOptions {
	po := isolation.PoolOptions{
		Run:      ro,
		Parallel: o.parallel, Idle: time.Duration(o.idle), // its range is the pool's to check
		OnDrop: func(e isolation.Engine, err error) {
			where := "the current engine"
			if e.Context != "" {
				where = "context " + e.Context
			}
			fmt.Fprintf(c.App.ErrWriter, "batch: dropping %s: %s\n", where, message(err))
		},
	}
	for _, name := range o.contexts.Value() {
		e := ro.Engine
		e.Context = name
		po.Engines = append(po.Engines, e)
	}
	return po
}

// batchEnd is how a batch that ran ends: interrupted, unable to write or
// read, a pool that did not close cleanly, or the status of the most
// serious verdict among the results.
func batchEnd(ctx context.Context, out *batchOutput, readErr, closeErr error) error {
	switch {
	case ctx.Err() != nil:
		return &isolation.Error{Verdict: isolation.Interrupted, Err: context.Cause(ctx)}
	case out.writeErr != nil:
		return writeFailed(out.writeErr)
	case readErr != nil:
		return readErr
	case closeErr != nil:
		return closeErr
	}
	if worst := out.worst(); worst != isolation.OK {
		return &silentError{code: status(worst)}
	}
	return nil
}

// scheduler starts one request per valid input line as a slot frees.
type scheduler struct {
	out      *batchOutput
	pool     *isolation.Pool
	failFast bool
	starlark bool // no interpreter named: the source's Starlark rules apply
	ids      idLines
	wg       sync.WaitGroup
}

// run reads lines until EOF, a signal, a failed write or, with
// --fail-fast, a failure. It returns once the reader has ended (see
// lineReader.close); the requests it started may still be running (wg).
func (s *scheduler) run(ctx context.Context, in io.Reader) error {
	lr := newLineReader(ctx, in)
	defer lr.close()
	for line := 1; ; line++ {
		select {
		case s.out.slots <- struct{}{}:
		case <-ctx.Done():
			return nil
		case <-s.out.broken: // no result could be written: end now, not at the next line
			return nil
		}
		var l inputLine
		select {
		case l = <-lr.lines:
		case <-ctx.Done():
			<-s.out.slots
			return nil
		case <-s.out.broken:
			<-s.out.slots
			return nil
		}
		end, err := s.take(ctx, line, l)
		if end || err != nil {
			return err
		}
	}
}

// take handles one line whose slot is taken: no request (its slot given
// back), a refusal, or a request started. end is true after the last line.
func (s *scheduler) take(ctx context.Context, line int, l inputLine) (end bool, err error) {
	eof := errors.Is(l.err, io.EOF)
	if l.err != nil && !eof {
		<-s.out.slots
		return true, &rejected{err: fmt.Errorf("reading requests: %w", l.err)}
	}
	failed, broken := s.out.failedOrBroken()
	if (eof && len(l.raw) == 0) || broken || (s.failFast && failed) {
		<-s.out.slots
		return true, nil
	}
	if len(bytes.TrimSpace(l.raw)) == 0 {
		s.out.skip(line) // a blank line is no request: skipped, as JSON Lines readers do
		return eof, nil
	}
	readAt := time.Now()
	id, req, err := batchline.Decode(l.raw, s.starlark)
	if err != nil {
		err = lineError(line, err)
	}
	if repeat := s.ids.see(id, line); err == nil && repeat != nil {
		err = fmt.Errorf("line %d: %w", line, repeat)
	}
	if err != nil {
		s.out.emit(line, id, rejectedResult(err))
		return eof, nil
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		res, _ := s.pool.Run(ctx, requestOf(req), readAt)
		s.out.emit(line, id, res)
	}()
	return eof, nil
}

// batchParallelText says what --parallel's default is for, measured.
const batchParallelText = "Without --parallel, as many containers run at once as the engine has CPUs\n" +
	"(docker info's NCPU, at most 64; 1 if it cannot be read). Batch beats xargs -P <CPUs> of run when\n" +
	"requests arrive over time, each finding a warm container (its latency the program's, not a container\n" +
	"start's), but not in throughput over input all at hand, which container starts and removals bound alike."

// cpuQueryTimeout bounds asking an engine its CPU count: an engine slower
// than this to answer `docker info` is taken as one CPU.
const cpuQueryTimeout = 10 * time.Second

// defaultParallel is --parallel when it is not given: the pool's engines'
// CPUs in all (one container per CPU keeps each busy without queueing),
// 1 for an engine whose count cannot be read (such an engine fails its
// runs anyway, with their own message), at most limits.MaxParallel.
func defaultParallel(ctx context.Context, po isolation.PoolOptions) int {
	engines := po.Engines
	if len(engines) == 0 {
		engines = []isolation.Engine{po.Run.Engine}
	}
	ctx, cancel := context.WithTimeout(ctx, cpuQueryTimeout)
	defer cancel()
	n := 0
	for _, e := range engines {
		cpus, err := e.CPUs(ctx)
		if err != nil || cpus < 1 {
			cpus = 1
		}
		n += cpus
	}
	return min(n, limits.MaxParallel)
}

// requestOf is a batch line's request as the library takes it.
func requestOf(r protocol.Request) isolation.Request {
	req := isolation.Request{Source: r.Source, Stdin: r.Stdin, Files: r.Files, Binary: r.Binary, Collect: r.Collect, Compare: r.Compare}
	if r.Tests != nil {
		req.Tests = make([]isolation.Test, len(r.Tests))
		for i, t := range r.Tests {
			req.Tests[i] = isolation.Test{Name: t.Name, Stdin: t.Stdin, Expect: t.Expect}
		}
	}
	return req
}
