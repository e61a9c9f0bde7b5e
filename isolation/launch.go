package isolation

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/attest"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/docker"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/frames"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/removal"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// launched is a `docker run` started with its request not yet sent: at
// once for Run, ahead of time for a warm pool. It owns the client process
// and what it printed; the run that holds it (attempt) decides from them.
type launched struct {
	plan    *runPlan
	client  *docker.Client
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	out     *frames.Stdout   // the runner's stdout: hello, then response
	resp    *frames.Response // the response part of out
	stderr  *docker.StderrWatch
	reaper  *removal.Reaper // removes the container should this process die first
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
	record *docker.RecordAhead

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

// launch starts `docker run` for plan with its stdin open. Its context
// ends with ctx (a signal, say), or with abort.
func launch(ctx context.Context, c *docker.Client, plan *runPlan) (*launched, error) {
	runCtx, abort := context.WithCancelCause(ctx)
	l := &launched{plan: plan, client: c, parent: ctx, runCtx: runCtx, abort: abort, done: make(chan struct{})}
	l.resp = frames.NewResponse(limits.MaxResponseBytes)
	l.resp.OnOverflow = func() { abort(errResponseTooLarge) }
	l.out = frames.NewStdout(l.resp)
	l.stderr = &docker.StderrWatch{OnWarning: func(line string) { abort(&warningError{line: line}) }}
	var err error
	if l.reaper, err = removal.StartReaper(c, plan.RunID); err != nil {
		abort(nil)
		return nil, &Error{Verdict: protocol.EngineFailure, Err: err}
	}
	l.at = time.Now()
	if l.cmd, l.stdin, err = c.StartRun(runCtx, plan.Argv, l.out, l.stderr); err != nil {
		l.reaper.Settle(true)
		abort(nil)
		return nil, &Error{Verdict: protocol.EngineFailure, Err: err}
	}
	l.reaper.Watch(l.cmd.Process.Pid)
	go func() {
		l.waitErr = l.cmd.Wait()
		close(l.done)
	}()
	if attest.NeedsRecord(plan.Column) {
		l.record = c.ReadRecordAhead(runCtx, plan.Name, plan.RunID, l.out.Ended(), l.done)
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
		if data != nil {
			// A judge's tests' data: after the request, which announced it.
			_ = data(l.stdin)
		}
		_ = l.stdin.Close()
	}()
}

// listAhead lists the run's container, for deadlinePassed.
func (l *launched) listAhead(ctx context.Context) {
	ids, err := l.client.Ours(ctx, l.plan.RunID)
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
	case <-l.resp.Ended():
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
		ctx, cancel := context.WithTimeout(context.Background(), removal.CleanupTimeout)
		defer cancel()
		l.removing <- l.client.Remove(ctx, ids)
	}(l.known)
}

// ready tells a warm container's runner that its hello passed (one
// newline), so it may start the interpreter its image preloads; the
// request follows when one comes.
func (l *launched) ready() error {
	if _, err := l.stdin.Write([]byte{'\n'}); err != nil {
		return &Error{Verdict: protocol.EngineFailure, Err: fmt.Errorf("telling the runner its hello passed: %w", err)}
	}
	return nil
}

// teardown ends the run's container, the one way every run that sent its
// request ends it: a clean exit (f.clean) was removed by docker run --rm
// before it returned, and the reaper stands down; a client that was never
// waited for leaves the removal to the reaper; any other end has the
// container removed daemon-side and confirmed gone (remove), what it found
// and how it failed noted in f.
func (l *launched) teardown(f *facts) {
	switch {
	case f.waitErr != nil:
		l.reaper.Settle(false) // no exit status: the reaper makes sure
	case f.clean():
		l.reaper.Settle(true)
	default:
		f.stillRan, f.rmErr = l.remove(f.end)
	}
}

// remove removes the run's container daemon-side and confirms it gone
// (removal.Loop), then tells the reaper: confirmed, it stands down;
// unconfirmed, it goes on trying on its own. Killing the `docker run`
// client removes nothing: the container belongs to the daemon and keeps
// running, and --rm only applies once it exits. So this runs
// synchronously, before Run returns.
func (l *launched) remove(clientDied time.Time) (found bool, err error) {
	return l.removeWithin(clientDied, removal.MaxListErrors)
}

// removeWithin is remove giving up after attempts failed listings; a
// removal it could not confirm is the engine's failure.
func (l *launched) removeWithin(clientDied time.Time, attempts int) (found bool, err error) {
	l.mu.Lock()
	removing := l.removing
	l.mu.Unlock()
	r := removal.Loop{Client: l.client, RunID: l.plan.RunID, MaxErrs: attempts, Created: l.out.Spoke(), Removing: removing,
		ClientGone: func() (time.Time, bool) { return clientDied, true }}
	found, err = r.Run()
	l.reaper.Settle(err == nil)
	if err != nil {
		return found, &Error{Verdict: protocol.EngineFailure, Err: err}
	}
	return found, nil
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
	l.stderr.Finish() // a last WARNING line without a newline still aborts
	if l.cmd.ProcessState == nil {
		return end, &Error{Verdict: protocol.EngineFailure, Err: fmt.Errorf("waiting for %s: %w", l.client.Path(), l.waitErr)}
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
		return &Error{Verdict: protocol.Interrupted, Err: context.Cause(l.parent)}
	}
	return nil
}
