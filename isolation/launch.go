package isolation

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/capture"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// launched is a `docker run` started with its request not yet sent: at
// once for Run, ahead of time for a warm pool. It owns the client process
// and what it printed; the run that holds it (attempt) decides from them.
type launched struct {
	plan    *runPlan
	client  *client
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	out     *frames    // the runner's stdout: hello, then response
	resp    *firstByte // the response part of out
	stderr  *stderrWatch
	reaper  *reaper // removes the container should this process die first
	parent  context.Context
	runCtx  context.Context
	abort   context.CancelCauseFunc
	done    chan struct{} // closed once docker run was waited for
	waitErr error         // cmd.Wait's error; read after done
	at      time.Time     // when docker run was started
	helloAt time.Time     // when the hello line arrived
	sent    time.Time     // when the request was written
	// record is the engine's record of the container, read while it
	// boots, where the run's column needs it; nil elsewhere.
	record *recordAhead

	mu    sync.Mutex
	timer *time.Timer
	// ahead lists the container shortly before the host deadline
	// (listAhead), until the client was waited for: aheadStop.
	ahead     *time.Timer
	aheadStop context.CancelFunc
	// known are the container's IDs, listed ahead; removing, the result
	// of their removal, started the moment the deadline passed.
	known    []string
	removing chan error
	// graced says the deadline found the runner's answer already, and
	// gave the run exitGrace.
	graced bool
}

// stopLead is how long before the host deadline the runner is told to stop
// a program that runs once (protocol.WithStop): about what the engine
// takes to end and remove a container whose program stopped (die to
// destroy, then docker run's return: 60 to 150 ms here), so a run that
// meets its deadline returns near it with its container gone, instead of
// being killed and removed from outside after it (docker rm -f took about
// 200 ms). The program's time is the run's deadline less its start and
// this.
const stopLead = 100 * time.Millisecond

// stopGrace is how long past the deadline the host waits for a runner it
// told to stop before it kills the run from outside: a runner answers
// within a few ms of its stop on a quiet machine, and within about 200 ms
// with two copies of the test suite alongside; two seconds is ten times
// that, and only a runner that ignored its stop ever waits it out.
const stopGrace = 2 * time.Second

// exitGrace is how long past the host deadline a run whose runner has
// answered is left to end by itself: its container is on its way out, and
// a kill then would only race --rm's removal. It only ever delays a runner
// that answered and then did not exit.
const exitGrace = 3 * time.Second

// listAhead is how long before the host deadline a run still going has
// its container listed, so that a run meeting its deadline is removed at
// once, without a listing first.
const listAhead = time.Second

// Causes of an early stop. Each abort of a run sets one; the first wins,
// and the verdict is decided from it.
var (
	errHostDeadline     = errors.New("host deadline")
	errResponseTooLarge = fmt.Errorf("response larger than %d bytes", limits.MaxResponseBytes)
)

// requestEnded is the abort cause when a pool request's own context ended
// while its program ran.
type requestEnded struct{ cause error }

func (e *requestEnded) Error() string { return e.cause.Error() }

// warningError is the abort cause when docker printed a WARNING line: it
// does so when it discards a limit it cannot apply.
type warningError struct{ line string }

func (e *warningError) Error() string { return e.line }

func (e *warningError) refusal() error {
	return &Error{Verdict: EngineFailure, Err: fmt.Errorf("refusing the run: docker did not apply the whole policy: %s", e.line)}
}

// firstByte is the bounded response capture that also notes when the
// response began to arrive, and when its line ended: the response is one
// line of JSON, which holds no raw newline, so its first newline is its
// end.
type firstByte struct {
	*capture.Buffer
	once sync.Once
	at   time.Time
	// ended is closed by the first newline written.
	ended   chan struct{}
	endOnce sync.Once
}

func newFirstByte(limit int) *firstByte {
	return &firstByte{Buffer: capture.New(limit), ended: make(chan struct{})}
}

func (f *firstByte) Write(p []byte) (int, error) {
	f.once.Do(func() { f.at = time.Now() })
	n, err := f.Buffer.Write(p)
	if bytes.IndexByte(p, '\n') >= 0 {
		f.endOnce.Do(func() { close(f.ended) })
	}
	return n, err
}

// arrived returns when the first response byte came, zero if none did.
func (f *firstByte) arrived() time.Time {
	f.once.Do(func() {}) // orders the read after the first Write
	return f.at
}

// launch starts `docker run` for plan with its stdin open. Its context
// ends with ctx (a signal, say), or with abort.
func launch(ctx context.Context, c *client, plan *runPlan) (*launched, error) {
	runCtx, abort := context.WithCancelCause(ctx)
	l := &launched{plan: plan, client: c, parent: ctx, runCtx: runCtx, abort: abort, done: make(chan struct{})}
	l.resp = newFirstByte(limits.MaxResponseBytes)
	l.resp.OnOverflow = func() { abort(errResponseTooLarge) }
	l.out = newFrames(l.resp)
	l.stderr = &stderrWatch{onWarning: func(line string) { abort(&warningError{line: line}) }}
	var err error
	if l.reaper, err = newReaper(c, plan.RunID); err != nil {
		abort(nil)
		return nil, &Error{Verdict: EngineFailure, Err: err}
	}
	l.at = time.Now()
	if l.cmd, l.stdin, err = c.startRun(runCtx, plan.Argv, l.out, l.stderr); err != nil {
		l.reaper.settle(true)
		abort(nil)
		return nil, &Error{Verdict: EngineFailure, Err: err}
	}
	l.reaper.watch(l.cmd.Process.Pid)
	go func() {
		l.waitErr = l.cmd.Wait()
		close(l.done)
	}()
	if needsRecord(plan.Column) {
		l.record = l.readRecordAhead()
	}
	return l, nil
}

// send writes the request and closes stdin; the host deadline is armed to
// end at deadline. A program that runs once (not a judge's, whose
// runner keeps its own deadline) is sent the host's stop, stopLead before
// it, and is killed from outside only stopGrace after it. Only a run whose
// hello passed gets here.
func (l *launched) send(enc encoded, deadline time.Time) {
	l.mu.Lock()
	l.sent = time.Now()
	body, data := enc.body, enc.data
	kill := deadline
	if enc.in.Tests == nil {
		body = protocol.WithStop(body, deadline.Sub(l.sent)-stopLead)
		kill = deadline.Add(stopGrace)
	}
	l.timer = time.AfterFunc(time.Until(kill), l.deadlinePassed)
	var ctx context.Context
	ctx, l.aheadStop = context.WithCancel(context.Background())
	l.ahead = time.AfterFunc(time.Until(kill.Add(-listAhead)), func() { l.listAhead(ctx) })
	l.mu.Unlock()
	go func() {
		// One line: the runner answers at the newline, without waiting
		// for EOF to cross docker. A client that died already makes this
		// fail; finish says why.
		_, _ = l.stdin.Write(append(body[:len(body):len(body)], '\n'))
		if len(data) > 0 {
			// A judge's tests' data: after the request, which announced it.
			_, _ = l.stdin.Write(data)
		}
		_ = l.stdin.Close()
	}()
}

// listAhead lists the run's container, for deadlinePassed.
func (l *launched) listAhead(ctx context.Context) {
	ids, err := l.client.ours(ctx, l.plan.RunID)
	if err != nil || len(ids) == 0 {
		return
	}
	l.mu.Lock()
	l.known = ids
	l.mu.Unlock()
}

// deadlinePassed aborts the run when its kill time comes (the host
// deadline, or stopGrace after it for a run sent a stop) and, if its
// container was listed ahead, starts removing it at once, beside the
// client's kill: the removal (removeWithin) waits for it. A run whose
// runner answered already (it stopped the program at the host's stop)
// is given exitGrace to end by itself first.
func (l *launched) deadlinePassed() {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-l.resp.ended:
		if !l.graced {
			l.graced = true
			l.timer = time.AfterFunc(exitGrace, l.deadlinePassed)
			return
		}
	default:
	}
	l.abort(errHostDeadline)
	if len(l.known) == 0 {
		return
	}
	l.removing = make(chan error, 1)
	go func(ids []string) {
		ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		defer cancel()
		l.removing <- l.client.rm(ctx, ids)
	}(l.known)
}

// ready tells a warm container's runner that its hello passed (one
// newline), so it may start the interpreter its image preloads; the
// request follows when one comes.
func (l *launched) ready() error {
	if _, err := l.stdin.Write([]byte{'\n'}); err != nil {
		return &Error{Verdict: EngineFailure, Err: fmt.Errorf("telling the runner its hello passed: %w", err)}
	}
	return nil
}

// remove removes the run's container daemon-side and confirms it gone
// (removeRun), then tells the reaper: confirmed, it stands down;
// unconfirmed, it goes on trying on its own.
func (l *launched) remove(clientDied time.Time) (found bool, err error) {
	return l.removeWithin(clientDied, maxListErrors)
}

// removeWithin is remove giving up after attempts failed listings.
func (l *launched) removeWithin(clientDied time.Time, attempts int) (found bool, err error) {
	l.mu.Lock()
	removing := l.removing
	l.mu.Unlock()
	r := removal{c: l.client, runID: l.plan.RunID, maxErrs: attempts, created: l.out.spoke(), removing: removing,
		clientGone: func() (time.Time, bool) { return clientDied, true }}
	found, err = r.run()
	l.reaper.settle(err == nil)
	return found, err
}

// kill stops the client of a container that will get no request.
func (l *launched) kill() {
	_ = l.stdin.Close()
	l.abort(errors.New("discarded"))
	<-l.done
}

// clientEnd is how docker run ended.
type clientEnd struct {
	at   time.Time // when it was waited for
	code int       // its exit status, -1 when a signal killed it
}

// wait waits for docker run and returns how it ended; an error when it was
// not waited for (its process state is unknown).
func (l *launched) wait() (clientEnd, error) {
	<-l.done
	end := clientEnd{at: time.Now(), code: -1}
	l.mu.Lock()
	if l.timer != nil {
		l.timer.Stop()
		l.ahead.Stop()
		l.aheadStop()
	}
	l.mu.Unlock()
	l.stderr.finish() // a last WARNING line without a newline still aborts
	if l.cmd.ProcessState == nil {
		return end, &Error{Verdict: EngineFailure, Err: fmt.Errorf("waiting for %s: %w", l.client.path, l.waitErr)}
	}
	end.code = l.cmd.ProcessState.ExitCode()
	return end, nil
}

// cause is why the run was aborted, nil if it was not.
func (l *launched) cause() error { return context.Cause(l.runCtx) }

// interrupted is the run's outer context ending (a signal, say), nil if it
// has not.
func (l *launched) interrupted() error {
	if l.parent.Err() != nil {
		return &Error{Verdict: Interrupted, Err: context.Cause(l.parent)}
	}
	return nil
}

// versionGrace is how long, after a hello wait ended in silence, the host
// waits for an answer to the closed stdin: a runner of protocol v1 waits
// for its request and, given EOF, answers at once, naming its version.
const versionGrace = 500 * time.Millisecond

// awaitHello returns the hello line, or why none came: the deadline
// passed, the client ended, or the run was aborted (a WARNING line, a
// signal).
func (l *launched) awaitHello(deadline time.Time, bound time.Duration) ([]byte, error) {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-l.out.ended:
	case <-l.done:
		// The client's output is all copied once it was waited for, so a
		// hello it wrote has ended by now.
		select {
		case <-l.out.ended:
		default:
			return nil, &noHelloError{exit: l.cmd.ProcessState.ExitCode()}
		}
	case <-t.C:
		// Which deadline passed decides whose it was: the run's own is its
		// timeout; a pool's start bound is the sandbox's. Part of a line
		// is noted before the stdin is closed and a runner that stayed
		// silent is given versionGrace to name its protocol version.
		partial := len(l.out.hello()) > 0
		_ = l.stdin.Close()
		return nil, &noHelloError{within: bound, own: deadline.Equal(l.plan.Deadline), partial: partial, version: l.answeredVersion()}
	case <-l.runCtx.Done():
		return nil, context.Cause(l.runCtx)
	}
	l.helloAt = time.Now()
	return l.out.hello(), nil
}

// silenced ends a run whose hello did not pass: its stdin is closed with
// nothing written, so not a byte of the source reaches it, and the client
// is killed with cause.
func (l *launched) silenced(cause error) {
	_ = l.stdin.Close()
	l.abort(cause)
}

// answeredVersion waits briefly for an answer to the closed stdin and
// returns the protocol version it names, 0 if none came.
func (l *launched) answeredVersion() int {
	t := time.NewTimer(versionGrace)
	defer t.Stop()
	select {
	case <-l.out.ended:
	case <-l.done:
	case <-t.C:
	}
	select {
	case <-l.out.ended:
		if v, ok := protocol.PeekVersion(l.out.hello()); ok {
			return v
		}
	default:
	}
	return 0
}
