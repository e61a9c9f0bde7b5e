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
	"github.com/synapse-lang/synapse-isolation/isolation/cli/internal/batchline"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// batchOptions are batch's flags: run's options but --name, the pool's
// and how to read the requests and write the results.
type batchOptions struct {
	sandbox  sandboxOptions
	parallel int
	idle     limits.Duration
	contexts cli.StringSlice
	batchIO
}

// batchIO is how a batch reads its requests and writes its results; each
// line's collected files go to a subdirectory of the output directory.
type batchIO struct {
	input             string
	ordered, failFast bool
	output
}

func batchCommand(s *session) *cli.Command {
	var o batchOptions
	return &cli.Command{
		Name:  "batch",
		Usage: "run JSON Lines requests, each in its own fresh container, from a warm pool; one result line each",
		ArgsUsage: "[-- CMD ARGS...]  (an interpreter in the image, as for run)\n\n" +
			`   Each input line is {"id": <string or number, optional>, "source": "..."}, with "stdin", "files"` + "\n" +
			`   ({"NAME": "text" or {"base64": "..."}}), "collect" (["PATTERN", ...]), "tests" ([{"name": "...", "stdin": "...",` + "\n" +
			`   "expect": "..."}], as run's --test, within the line), "compare", "checker" ({"source": "...", "image":` + "\n" +
			`   "sha256:..."}, as run's --checker and --checker-image: the checker runs in a cold container of its own, and` + "\n" +
			`   "interactor" likewise, as run's --interactor)` + "\n" +
			`   if needed; each output line is the object run prints plus "id" (null without one) and "line". An id may` + "\n" +
			`   not repeat an earlier line's.` + "\n" +
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
			&cli.StringFlag{Name: "output-dir", Usage: "write the files a line's \"collect\" returned into `DIR`/ID (its id, when a plain name not spelled line-N) or DIR/line-N, " +
				"after an ok or program_error verdict, as run --output-dir does", TakesFile: true, Destination: &o.outputDir},
			&cli.BoolFlag{Name: "force", Usage: "--output-dir: replace a file of the same name (else the line is an engine_failure)", Destination: &o.force},
		),
		Action: func(c *cli.Context) error {
			inv, err := o.invocation(c, s)
			if err != nil {
				return err
			}
			return inv.act(c.Context, s)
		},
	}
}

// batchInvocation is a batch as its flags ask for it, checked: the pool's
// options (Parallel 0 until the engines' CPUs say it) and its I/O.
type batchInvocation struct {
	pool isolation.PoolOptions
	batchIO
}

// invocation checks the flags before docker is asked anything (the
// engine's CPU count, when --parallel is not given), in the pool's order:
// --parallel, --idle by the pool's own range (limits.CheckIdle), and the
// run's options as the pool checks them too (Options.Check).
func (o *batchOptions) invocation(c *cli.Context, s *session) (batchInvocation, error) {
	ro, err := o.sandbox.options(c, s)
	if err != nil {
		return batchInvocation{}, err
	}
	if c.IsSet("parallel") {
		// Written out, 0 is not "the default" (which the pool's zero
		// means): the CLI refuses it with every other value out of range.
		err = limits.CheckParallel(o.parallel)
	}
	if err == nil && o.idle != 0 {
		err = limits.CheckIdle(time.Duration(o.idle))
	}
	if err != nil {
		return batchInvocation{}, asWritten(c, &rejected{err: err})
	}
	// The image's declared interpreter is read from the engine only once
	// the pool checked the engine is there and has the image; no other
	// rule of the options depends on it.
	if err := ro.Check(); err != nil {
		return batchInvocation{}, asWritten(c, err)
	}
	inv := batchInvocation{batchIO: o.batchIO, pool: isolation.PoolOptions{
		Run: ro, Parallel: o.parallel, Idle: time.Duration(o.idle),
		OnDrop: func(e isolation.Engine, err error) {
			where := "the current engine"
			if e.Context != "" {
				where = "context " + e.Context
			}
			fmt.Fprintf(s.stderr, "batch: dropping %s: %s\n", oneLine(where), oneLine(message(err)))
		},
	}}
	for _, name := range o.contexts.Value() {
		e := ro.Engine
		e.Context = name
		inv.pool.Engines = append(inv.pool.Engines, e)
	}
	return inv, nil
}

// act opens the input, starts the pool, runs every request and says how
// the batch ended.
func (inv batchInvocation) act(ctx context.Context, s *session) error {
	in, total, err := inv.openInput(s)
	if err != nil {
		return err
	}
	defer in.Close()
	start := time.Now()
	if inv.pool.Parallel == 0 {
		inv.pool.Parallel = defaultParallel(ctx, inv.pool)
	}
	pool, err := isolation.NewPool(ctx, inv.pool)
	if err != nil {
		return err // exitCode and message read the typed error as they are
	}
	out := newBatchOutput(s.stdout, s.stderr, inv.ordered, inv.pool.Parallel, func(v isolation.Verdict) int { return resultStatus(ctx, v) })
	out.total, out.output = total, inv.output
	sch := &scheduler{out: out, pool: pool, failFast: inv.failFast, starlark: pool.Exec() == nil, ids: batchline.IDs{}, dirs: lineDirs{}}
	readErr := sch.run(ctx, in)
	pool.Drain() // the input is done: start no container nobody will use
	sch.wg.Wait()
	closeErr := pool.Close()
	out.summary(time.Since(start))
	return batchEnd(ctx, out, readErr, closeErr)
}

// openInput is --input, or stdin without it. total is the number of
// requests in a regular file, for the progress on a terminal (0: not
// known).
func (inv batchInvocation) openInput(s *session) (in io.ReadCloser, total int, err error) {
	if inv.input == "" {
		return io.NopCloser(s.stdin), 0, nil
	}
	f, err := os.Open(inv.input)
	if err != nil {
		return nil, 0, rejectf("--input: %w", err)
	}
	if isTerminal(s.stderr) {
		total = batchline.Count(f)
	}
	return f, total, nil
}

// batchEnd is how a batch that ran ends: interrupted, unable to write or
// read, a pool that did not close cleanly, or the status of the most
// serious verdict among the results.
func batchEnd(ctx context.Context, out *batchOutput, readErr, closeErr error) error {
	switch {
	case ctx.Err() != nil:
		return &isolation.Error{Verdict: protocol.Interrupted, Err: context.Cause(ctx)}
	case out.writeErr != nil:
		return writeFailed(out.writeErr)
	case readErr != nil:
		return readErr
	case closeErr != nil:
		return closeErr
	}
	if worst := out.worst(); worst != protocol.OK {
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
	ids      batchline.IDs
	dirs     lineDirs // --output-dir: each line's directory, claimed before it runs
	wg       sync.WaitGroup
}

// run reads lines until EOF, a signal, a failed write or, with
// --fail-fast, a failure. It returns once the reader has ended (see
// batchline.Reader.Close); the requests it started may still be running (wg).
func (s *scheduler) run(ctx context.Context, in io.Reader) error {
	lr := batchline.NewReader(ctx, in)
	defer lr.Close()
	for line := 1; ; line++ {
		select {
		case s.out.slots <- struct{}{}:
		case <-ctx.Done():
			return nil
		case <-s.out.broken: // no result could be written: end now, not at the next line
			return nil
		}
		var l batchline.Line
		select {
		case l = <-lr.Lines:
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
func (s *scheduler) take(ctx context.Context, line int, l batchline.Line) (end bool, err error) {
	eof := errors.Is(l.Err, io.EOF)
	if l.Err != nil && !eof {
		<-s.out.slots
		return true, &rejected{err: fmt.Errorf("reading requests: %w", l.Err)}
	}
	failed, broken := s.out.failedOrBroken()
	if (eof && len(l.Raw) == 0) || broken || (s.failFast && failed) {
		<-s.out.slots
		return true, nil
	}
	if len(bytes.TrimSpace(l.Raw)) == 0 {
		s.out.skip(line) // a blank line is no request: skipped, as JSON Lines readers do
		return eof, nil
	}
	readAt := time.Now()
	id, req, err := batchline.Decode(l.Raw, s.starlark)
	if err != nil {
		err = batchline.Refusal(line, err)
	}
	if repeat := s.ids.See(id, line); err == nil && repeat != nil {
		err = fmt.Errorf("line %d: %w", line, repeat)
	}
	if err == nil && s.out.outputDir != "" {
		err = s.dirs.claim(line, id)
	}
	if err != nil {
		s.out.emit(line, id, rejectedResult(err))
		return eof, nil
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		res, _ := s.pool.Run(ctx, req, readAt)
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
