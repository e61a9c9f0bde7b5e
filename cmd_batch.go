package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

func batchCommand() *cli.Command {
	return &cli.Command{
		Name:  "batch",
		Usage: "run JSON Lines requests, each in its own fresh container, from a warm pool; one result line each",
		ArgsUsage: "[-- CMD ARGS...]  (an interpreter in the image, as for run)\n\n" +
			`   Each input line is {"id": <string or number>, "source": "..."}; each output line is the object run` + "\n" +
			`   prints plus "id" and "line". A summary goes to stderr.`,
		Description: "Exit status: " + batchExitText(),
		Flags: []cli.Flag{
			imageFlag("immutable image `ID` (sha256:<64 hex>) to run"),
			memoryFlag("memory `SIZE` per container (swap capped to the same), at least 64m"),
			durationFlag("timeout", limits.DefaultTimeout, "wall-clock limit `DURATION` per request, from its arrival"),
			&cli.IntFlag{Name: "parallel", Value: 1, Usage: "at most `N` containers at once, ready or running"},
			durationFlag("idle", isolation.DefaultIdle, "a ready container waiting longer than `DURATION` ends on its own"),
			&cli.StringSliceFlag{Name: "context", Usage: "docker CLI context `NAME`; repeat to spread over several engines"},
			runtimeFlag(),
			cliFlag(),
			&cli.StringFlag{Name: "input", Usage: "read requests from `FILE` instead of stdin", TakesFile: true},
			&cli.BoolFlag{Name: "ordered", Usage: "write results in input order (default: as they complete)", DisableDefaultText: true},
			&cli.BoolFlag{Name: "fail-fast", Usage: "stop reading at the first result that is not ok", DisableDefaultText: true},
		},
		Action: runBatch,
	}
}

// maxBatchLine bounds an input line: a request at its limit plus room for
// the id. A longer line is refused without being held in memory.
const maxBatchLine = limits.MaxRequestBytes + 4<<10

func runBatch(c *cli.Context) error {
	o, err := optionsFromFlags(c)
	if err != nil {
		return err
	}
	o.Engine.Context = "" // batch's --context is a list: the engines below
	// Its range is the pool's to check, with one message.
	idle := duration(c, "idle")
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
		Parallel: parallel, Idle: idle,
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
	b := &batch{c: c, ordered: c.Bool("ordered"), failFast: c.Bool("fail-fast"), starlark: o.Exec == nil, slots: make(chan struct{}, parallel),
		counts: map[isolation.Verdict]int{}, pending: map[int][]byte{}, next: 1, progress: isTerminalWriter(c.App.ErrWriter)}
	readErr := b.read(c.Context, in, pool)
	pool.Drain() // the input is done: start no container nobody will use
	b.wg.Wait()
	closeErr := pool.Close()
	b.summary(time.Since(start))
	switch {
	case c.Context.Err() != nil:
		return &isolation.Error{Verdict: isolation.Interrupted, Err: context.Cause(c.Context)}
	case b.writeErr != nil:
		return writeFailed(b.writeErr)
	case readErr != nil:
		return readErr
	case closeErr != nil:
		return closeErr
	}
	if code := b.exitCode(); code != 0 {
		return &silentError{code: code}
	}
	return nil
}

// batch writes one result line per input line and keeps the tallies.
type batch struct {
	c        *cli.Context
	ordered  bool
	failFast bool
	starlark bool // no interpreter named: the source's Starlark rules apply
	progress bool
	slots    chan struct{} // bounds requests in flight and, ordered, results held back
	wg       sync.WaitGroup

	mu      sync.Mutex
	counts  map[isolation.Verdict]int
	execMS  []int64
	failed  bool
	pending map[int][]byte // ordered: finished lines waiting for earlier ones
	// writeErr is the first failed write of a result line: reading stops,
	// and the batch exits as the tool's own failure.
	writeErr error
	next     int // ordered: the next line to write
	done     int
}

// read reads lines until EOF, a signal or, with --fail-fast, a failure,
// starting one request per valid line as a slot frees. The input is read
// by a goroutine of its own, so a signal is seen even while a read blocks
// (a pipe that stays open). read returns only once that goroutine has
// ended, unless it is inside a read of the input, which nothing can
// interrupt (a pipe that stays open): then it ends at that read's return,
// holding nothing but the input.
func (b *batch) read(ctx context.Context, in io.Reader, pool *isolation.Pool) error {
	type inLine struct {
		raw     []byte
		tooLong bool
		err     error
	}
	lines := make(chan inLine)
	var (
		mu       sync.Mutex
		stopped  bool // read has returned: the reader must end
		inRead   bool // the reader is inside a read of the input
		stop     = make(chan struct{})
		finished = make(chan struct{})
	)
	go func() {
		defer close(finished)
		r := bufio.NewReaderSize(in, 64<<10)
		for {
			mu.Lock()
			if stopped {
				mu.Unlock()
				return
			}
			inRead = true
			mu.Unlock()
			raw, tooLong, err := readLine(r)
			mu.Lock()
			inRead = false
			mu.Unlock()
			select {
			case lines <- inLine{raw, tooLong, err}:
			case <-ctx.Done():
				return
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	defer func() {
		mu.Lock()
		stopped = true
		reading := inRead
		mu.Unlock()
		close(stop)
		if !reading {
			<-finished
		}
	}()
	for line := 1; ; line++ {
		select {
		case b.slots <- struct{}{}:
		case <-ctx.Done():
			return nil
		}
		var l inLine
		select {
		case l = <-lines:
		case <-ctx.Done():
			<-b.slots
			return nil
		}
		if len(l.raw) == 0 && !l.tooLong && errors.Is(l.err, io.EOF) {
			<-b.slots
			return nil
		}
		if l.err != nil && !errors.Is(l.err, io.EOF) {
			<-b.slots
			return &rejected{err: fmt.Errorf("reading requests: %w", l.err)}
		}
		if b.stopped() {
			<-b.slots
			return nil
		}
		if !l.tooLong && len(bytes.TrimSpace(l.raw)) == 0 {
			b.skip(line) // a blank line is no request: skipped, as JSON Lines readers do
			if l.err != nil {
				return nil
			}
			continue
		}
		readAt := time.Now()
		id, req, perr := parseLine(l.raw, l.tooLong, line, b.starlark)
		if perr != nil {
			b.emit(line, id, rejectedResult(perr))
		} else {
			b.wg.Add(1)
			go func(line int) {
				defer b.wg.Done()
				res, _ := pool.Run(ctx, req, readAt)
				b.emit(line, id, res)
			}(line)
		}
		if errors.Is(l.err, io.EOF) {
			return nil
		}
	}
}

// readLine reads one line without its newline, at most maxBatchLine bytes;
// of a longer line it keeps nothing and reports it too long.
func readLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > maxBatchLine+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r")), tooLong, err
	}
}

// parseLine decodes one line with the one ingress decoder
// (protocol.DecodeLine). The id is returned even when the rest is refused,
// so the rejection can carry it.
func parseLine(raw []byte, tooLong bool, line int, starlark bool) (json.RawMessage, isolation.Request, error) {
	if tooLong {
		// Longer than any line whose request is within the limit.
		return nil, isolation.Request{}, fmt.Errorf("line %d: %w", line, protocol.RequestTooLarge(-1))
	}
	id, req, err := protocol.DecodeLine(raw, starlark)
	if err != nil {
		return id, req, fmt.Errorf("line %d: %w", line, err)
	}
	return id, req, nil
}

func (b *batch) stopped() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.failFast && b.failed || b.writeErr != nil
}

// write writes one result line; b.mu is held.
func (b *batch) write(line []byte) {
	if _, err := b.c.App.Writer.Write(line); err != nil && b.writeErr == nil {
		b.writeErr = err
	}
}

// skip frees a blank line's slot, in input order for --ordered, writing
// nothing for it.
func (b *batch) skip(line int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.ordered {
		<-b.slots
		return
	}
	b.pending[line] = []byte{}
	b.flush()
}

// emit writes a result line (or holds it back for --ordered) and frees
// its slot once written.
func (b *batch) emit(line int, id json.RawMessage, res isolation.Result) {
	obj, err := json.Marshal(res)
	if err != nil {
		obj = []byte(`{"verdict":"engine_failure"}`)
	}
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	out := append(fmt.Appendf(nil, `{"id":%s,"line":%d,`, id, line), obj[1:]...)
	out = append(out, '\n')

	b.mu.Lock()
	defer b.mu.Unlock()
	b.counts[res.Verdict]++
	b.done++
	if res.Verdict != isolation.OK {
		b.failed = true
	}
	if res.Timings.ExecMS != nil {
		b.execMS = append(b.execMS, *res.Timings.ExecMS)
	}
	if !b.ordered {
		b.write(out)
		<-b.slots
	} else {
		b.pending[line] = out
		b.flush()
	}
	if b.progress {
		fmt.Fprintf(b.c.App.ErrWriter, "\rbatch: %d done, %d ok", b.done, b.counts[isolation.OK])
	}
}

// flush writes the held-back lines that are next in input order, freeing
// a slot for each. b.mu is held.
func (b *batch) flush() {
	for {
		o, ok := b.pending[b.next]
		if !ok {
			return
		}
		b.write(o)
		delete(b.pending, b.next)
		b.next++
		<-b.slots
	}
}

// exitCode is the exit status of the most serious verdict seen, 0 when
// every result was ok.
func (b *batch) exitCode() int {
	worst := isolation.OK
	for v, n := range b.counts {
		if n > 0 && v.Severity() > worst.Severity() {
			worst = v
		}
	}
	return worst.ExitCode()
}

// seen returns the verdicts counted, ok first, then the most serious.
func (b *batch) seen() []isolation.Verdict {
	var vs []isolation.Verdict
	for v, n := range b.counts {
		if n > 0 {
			vs = append(vs, v)
		}
	}
	slices.SortFunc(vs, func(x, y isolation.Verdict) int {
		if x == isolation.OK || y == isolation.OK {
			return cmp.Compare(x.Severity(), y.Severity())
		}
		return cmp.Compare(y.Severity(), x.Severity())
	})
	return vs
}

// summary writes counts per verdict, the wall time and exec_ms
// percentiles to stderr.
func (b *batch) summary(wall time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.progress {
		fmt.Fprintln(b.c.App.ErrWriter)
	}
	msg := fmt.Sprintf("batch: %d results", b.done)
	for _, v := range b.seen() {
		msg += fmt.Sprintf(", %s %d", v, b.counts[v])
	}
	msg += fmt.Sprintf("; wall %.1fs", wall.Seconds())
	if len(b.execMS) > 0 {
		s := slices.Clone(b.execMS)
		slices.Sort(s)
		msg += fmt.Sprintf("; exec_ms p50 %d p95 %d", percentile(s, 50), percentile(s, 95))
	}
	fmt.Fprintln(b.c.App.ErrWriter, msg)
}

// percentile is the nearest-rank p-th percentile of sorted, non-empty s:
// the smallest value at least p% of the values are at or below.
func percentile(s []int64, p int) int64 {
	rank := (p*len(s) + 99) / 100 // ceil(p/100 * n)
	return s[max(rank, 1)-1]
}
