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
	"github.com/synapse-lang/synapse-isolation/limits"
)

func batchCommand() *cli.Command {
	return &cli.Command{
		Name:  "batch",
		Usage: "run JSON Lines requests, each in its own fresh container, from a warm pool; one result line each",
		ArgsUsage: "[-- CMD ARGS...]  (an interpreter in the image, as for run)\n\n" +
			`   Each input line is {"id": <string or number>, "source": "..."}; each output line is the object run` + "\n" +
			`   prints plus "id" and "line". A summary goes to stderr.`,
		Description: "Each request's --timeout counts from its arrival.\n\nExit status: " + batchExitText(),
		Flags: append(optionFlags(),
			&cli.IntFlag{Name: "parallel", Value: 1, Usage: "at most `N` containers at once, ready or running"},
			durationFlag("idle", isolation.DefaultIdle, "a ready container waiting longer than `DURATION` ends on its own"),
			&cli.StringSliceFlag{Name: "context", Usage: "docker CLI context `NAME`; repeat to spread over several engines"},
			&cli.StringFlag{Name: "input", Usage: "read requests from `FILE` instead of stdin", TakesFile: true},
			&cli.BoolFlag{Name: "ordered", Usage: "write results in input order (default: as they complete)", DisableDefaultText: true},
			&cli.BoolFlag{Name: "fail-fast", Usage: "stop reading at the first result that is not ok", DisableDefaultText: true},
		),
		Action: runBatch,
	}
}

func runBatch(c *cli.Context) error {
	o, err := optionsFromFlags(c)
	if err != nil {
		return err
	}
	// Written out, 0 is not "the default" (as for sizes and durations),
	// which the library's zero means; every other value is the pool's to
	// check, and both say its one range.
	parallel := c.Int("parallel")
	if parallel == 0 {
		return rejectf("--parallel: must be from 1 to %d (got \"0\")", limits.MaxParallel)
	}
	in := c.App.Reader
	if path := c.String("input"); path != "" {
		f, err := os.Open(path)
		if err != nil {
			return rejectf("--input: %w", err)
		}
		defer f.Close()
		in = f
	}
	po := isolation.PoolOptions{
		Run:      o,
		Parallel: parallel, Idle: duration(c, "idle"), // its range is the pool's to check
		OnDrop: func(e isolation.Engine, err error) {
			where := "the current engine"
			if e.Context != "" {
				where = "context " + e.Context
			}
			fmt.Fprintf(c.App.ErrWriter, "batch: dropping %s: %s\n", where, message(err))
		},
	}
	for _, name := range c.StringSlice("context") {
		e := o.Engine
		e.Context = name
		po.Engines = append(po.Engines, e)
	}
	start := time.Now()
	pool, err := isolation.NewPool(c.Context, po)
	if err != nil {
		return err // exitCode and message read the typed error as they are
	}
	out := newBatchOutput(c.App.Writer, c.App.ErrWriter, c.Bool("ordered"), parallel,
		func(v isolation.Verdict) int { return resultStatus(c.Context, v) })
	s := &scheduler{out: out, pool: pool, failFast: c.Bool("fail-fast"), starlark: o.Exec == nil}
	readErr := s.run(c.Context, in)
	pool.Drain() // the input is done: start no container nobody will use
	s.wg.Wait()
	closeErr := pool.Close()
	out.summary(time.Since(start))
	switch {
	case c.Context.Err() != nil:
		return &isolation.Error{Verdict: isolation.Interrupted, Err: context.Cause(c.Context)}
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
		}
		var l inputLine
		select {
		case l = <-lr.lines:
		case <-ctx.Done():
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
	id, req, err := isolation.DecodeLine(l.raw, s.starlark)
	if err != nil {
		s.out.emit(line, id, rejectedResult(fmt.Errorf("line %d: %w", line, err)))
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
