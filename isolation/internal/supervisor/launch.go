package supervisor

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

// Launched is a `docker run` started with its request not yet sent: at
// once for isolation.Run, ahead of time for a warm pool. It owns the
// client process and what it printed; the run that holds it decides
// from them.
type Launched struct {
	// Plan is the run's plan; Resp the response part of the runner's
	// stdout.
	Plan    *Plan
	client  *docker.Client
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	out     *frames.Stdout // the runner's stdout: hello, then response
	Resp    *frames.Response
	stderr  *docker.StderrWatch
	reaper  *removal.Reaper // removes the container should this process die first
	parent  context.Context
	runCtx  context.Context
	abort   context.CancelCauseFunc
	done    chan struct{} // closed once docker run was waited for
	waitErr error         // cmd.Wait's error; read after done
	At      time.Time     // when docker run was started
	helloAt time.Time     // when the hello line arrived
	Sent    time.Time     // when the request was written
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
	// gave the run ExitGrace.
	graced bool
}

// StopLead is how long before the host deadline the runner is told to stop
// a program that runs once (protocol.WithStop): about what the engine
// takes to end and remove a container whose program stopped (die to
// destroy, then docker run's return: 60 to 150 ms here), so a run that
// meets its deadline returns near it with its container gone, instead of
// being killed and removed from outside after it (docker rm -f took about
// 200 ms). The program's time is the run's deadline less its start and
// this.
const StopLead = 100 * time.Millisecond

// StopGrace is how long past the deadline the host waits for a runner it
// told to stop before it kills the run from outside: a runner answers
// within a few ms of its stop on a quiet machine, and within about 200 ms
// with two copies of the test suite alongside; two seconds is ten times
// that, and only a runner that ignored its stop ever waits it out.
const StopGrace = 2 * time.Second

// ExitGrace is how long past the host deadline a run whose runner has
// answered is left to end by itself: its container is on its way out, and
// a kill then would only race --rm's removal. It only ever delays a runner
// that answered and then did not exit.
const ExitGrace = 3 * time.Second

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

// EndRequest stops the run: the pool request it serves ended (cause).
func (l *Launched) EndRequest(cause error) { l.abort(&requestEnded{cause: cause}) }

// warningError is the abort cause when docker printed a WARNING line: it
// does so when it discards a limit it cannot apply.
type warningError struct{ line string }

func (e *warningError) Error() string { return e.line }

// Launch starts `docker run` for plan with its stdin open. Its context
// ends with ctx (a signal, say), or with Kill or EndRequest.
func Launch(ctx context.Context, c *docker.Client, plan *Plan) (*Launched, error) {
	runCtx, abort := context.WithCancelCause(ctx)
	l := &Launched{Plan: plan, client: c, parent: ctx, runCtx: runCtx, abort: abort, done: make(chan struct{})}
	l.Resp = frames.NewResponse(limits.MaxResponseBytes)
	l.Resp.OnOverflow = func() { abort(errResponseTooLarge) }
	l.out = frames.NewStdout(l.Resp)
	l.stderr = &docker.StderrWatch{OnWarning: func(line string) { abort(&warningError{line: line}) }}
	var err error
	if l.reaper, err = removal.StartReaper(c, plan.RunID); err != nil {
		abort(nil)
		return nil, &Error{Verdict: protocol.EngineFailure, Err: err}
	}
	l.At = time.Now()
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

// Send writes the request frame body, then data (a judge's tests' data;
// nil: none), and closes stdin; the host deadline is armed to end at
// deadline. A program that runs once (once: not a judge's, whose runner
// keeps its own deadline) is sent the host's stop, StopLead before it,
// and is killed from outside only StopGrace after it. Only a run whose
// hello passed gets here.
func (l *Launched) Send(body []byte, data func(io.Writer) error, once bool, deadline time.Time) {
	l.mu.Lock()
	l.Sent = time.Now()
	kill := deadline
	if once {
		body = protocol.WithStop(body, deadline.Sub(l.Sent)-StopLead)
		kill = deadline.Add(StopGrace)
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
func (l *Launched) listAhead(ctx context.Context) {
	ids, err := l.client.Ours(ctx, l.Plan.RunID)
	if err != nil || len(ids) == 0 {
		return
	}
	l.mu.Lock()
	l.known = ids
	l.mu.Unlock()
}

// deadlinePassed aborts the run when its kill time comes (the host
// deadline, or StopGrace after it for a run sent a stop) and, if its
// container was listed ahead, starts removing it at once, beside the
// client's kill: the removal (removeWithin) waits for it. A run whose
// runner answered already (it stopped the program at the host's stop)
// is given ExitGrace to end by itself first.
func (l *Launched) deadlinePassed() {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-l.Resp.Ended():
		if !l.graced {
			l.graced = true
			l.timer = time.AfterFunc(ExitGrace, l.deadlinePassed)
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

// Ready tells a warm container's runner that its hello passed (one
// newline), so it may start the interpreter its image preloads; the
// request follows when one comes.
func (l *Launched) Ready() error {
	if _, err := l.stdin.Write([]byte{'\n'}); err != nil {
		return &Error{Verdict: protocol.EngineFailure, Err: fmt.Errorf("telling the runner its hello passed: %w", err)}
	}
	return nil
}

// Teardown ends the run's container, the one way every run that sent its
// request ends it: a clean exit (f.Clean) was removed by docker run --rm
// before it returned, and the reaper stands down; a client that was never
// waited for leaves the removal to the reaper; any other end has the
// container removed daemon-side and confirmed gone (Remove), what it found
// and how it failed noted in f.
func (l *Launched) Teardown(f *Facts) {
	switch {
	case f.waitErr != nil:
		l.reaper.Settle(false) // no exit status: the reaper makes sure
	case f.Clean():
		l.reaper.Settle(true)
	default:
		f.stillRan, f.rmErr = l.Remove(f.end)
	}
}

// Remove removes the run's container daemon-side and confirms it gone
// (removal.Loop), then tells the reaper: confirmed, it stands down;
// unconfirmed, it goes on trying on its own. Killing the `docker run`
// client removes nothing: the container belongs to the daemon and keeps
// running, and --rm only applies once it exits. So this runs
// synchronously, before isolation.Run returns.
func (l *Launched) Remove(clientDied time.Time) (found bool, err error) {
	return l.removeWithin(clientDied, removal.MaxListErrors)
}

// removeWithin is Remove giving up after attempts failed listings; a
// removal it could not confirm is the engine's failure.
func (l *Launched) removeWithin(clientDied time.Time, attempts int) (found bool, err error) {
	l.mu.Lock()
	removing := l.removing
	l.mu.Unlock()
	r := removal.Loop{Client: l.client, RunID: l.Plan.RunID, MaxErrs: attempts, Created: l.out.Spoke(), Removing: removing,
		ClientGone: func() (time.Time, bool) { return clientDied, true }}
	found, err = r.Run()
	l.reaper.Settle(err == nil)
	if err != nil {
		return found, &Error{Verdict: protocol.EngineFailure, Err: err}
	}
	return found, nil
}

// Kill stops the client of a container that will get no request.
func (l *Launched) Kill() {
	_ = l.stdin.Close()
	l.abort(errors.New("discarded"))
	<-l.done
}

// ClientEnd is how docker run ended.
type ClientEnd struct {
	At   time.Time // when it was waited for
	Code int       // its exit status, -1 when a signal killed it
}

// wait waits for docker run and returns how it ended; an error when it was
// not waited for (its process state is unknown).
func (l *Launched) wait() (ClientEnd, error) {
	<-l.done
	end := ClientEnd{At: time.Now(), Code: -1}
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
	end.Code = l.cmd.ProcessState.ExitCode()
	return end, nil
}

// cause is why the run was aborted, nil if it was not.
func (l *Launched) cause() error { return context.Cause(l.runCtx) }

// interrupted is the run's outer context ending (a signal, say), nil if it
// has not.
func (l *Launched) interrupted() error {
	if l.parent.Err() != nil {
		return &Error{Verdict: protocol.Interrupted, Err: context.Cause(l.parent)}
	}
	return nil
}

// ExitedClean waits for a warm run's container to exit after its request
// was sent, and returns its response when its line may be answered now:
// its die event said 0 (so no OOM kill or other stop ended it), its
// response line ended, and nothing aborted the run. Otherwise (ok false)
// the client is waited for, as in a cold run (Gather).
func (l *Launched) ExitedClean(died <-chan int) (resp []byte, ok bool) {
	select {
	case code := <-died:
		if code != 0 {
			return nil, false
		}
	case <-l.done:
		return nil, false
	}
	select {
	case <-l.Resp.Ended():
	case <-l.done:
		return nil, false
	}
	if l.cause() != nil || l.interrupted() != nil {
		return nil, false
	}
	return l.Resp.Bytes(), true
}
