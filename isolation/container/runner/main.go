// Command runner is the in-container entrypoint of the reference image. It
// speaks protocol v3: first it reads its own view of the sandbox and writes
// it as the hello line, before it reads anything; then it reads one request
// from stdin (which the host writes only if the hello passed), evaluates it
// (Starlark by default, an operator's interpreter with --exec, or nothing
// with --selfcheck), and writes exactly one JSON response to stdout. It
// never writes to stderr, so anything on the stderr of `docker run` is
// Docker's own. It exits 0 whenever it wrote a response, whatever the
// program did; 2 means it could not write one.
//
// Usage: runner [--timeout D] [--exec CMD ARGS... | --selfcheck]
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"github.com/synapse-lang/synapse-isolation/isolation/container/interp"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/hello"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/runargs"
)

// hardStopGrace is how long after its deadline the runner waits for a
// program that ignores cancellation (a long builtin call) before it answers
// and exits anyway.
const hardStopGrace = time.Second

func main() {
	switch {
	case isProbe():
		os.Exit(probeMain(os.Args[2]))
	case isTrampoline():
		os.Exit(trampoline(os.Args[2], os.Args[3:]))
	case isChild():
		raiseOOMScore() // while still dumpable: see there
		protect()
		silenceStderr()
		probe := os.NewFile(probeFD, "probe")
		_ = writeProbe(probe, strconv.Itoa(os.Getppid()))
		probe.Close()
		os.Exit(starlarkChild(os.Args[2:], os.Stdin, os.Stdout))
	}
	protect()
	silenceStderr()
	// Before any thread is reserved and any child started: the filter,
	// installed on every thread at once, is inherited by all of them.
	seccompBy := ensureFilter(filterInForce, installFilter)
	reserveThreads(spareThreads)
	os.Exit(run(os.Args[1:], seccompBy, os.Stdin, os.Stdout))
}

// silenceStderr points fd 2 at /dev/null, so not even a Go runtime crash
// report can mix runner text into Docker's own stderr.
func silenceStderr() {
	if f, err := os.OpenFile("/dev/null", os.O_WRONLY, 0); err == nil {
		_ = unix.Dup3(int(f.Fd()), 2, 0) // dup3: arm64 has no dup2
		_ = f.Close()
	}
}

func failure(typ, msg string) protocol.Response {
	return protocol.Response{V: protocol.Version, Result: []byte("null"), Error: &protocol.Error{Type: typ, Message: msg}}
}

// run is the runner's whole exchange: its arguments, the hello, the
// request, the program under its limits, the response. Its exit code is 0
// when a response was written (exit answers for a panic too), 2 when none
// could be. seccompBy is who installed the filter in force (ensureFilter).
func run(args []string, seccompBy string, stdin io.Reader, stdout io.Writer) (code int) {
	r := &responder{out: stdout}
	defer r.exit(&code)
	cfg, err := runargs.Parse(args)
	if err != nil {
		r.send(failure(protocol.ErrRequest, "runner: "+err.Error()))
		return
	}
	_ = lockText() // best effort; see there
	cg := newCgroup(cgroupRoot)
	a, err := startAhead(cfg, cg)
	defer a.end()
	if err != nil {
		r.send(failure(protocol.ErrInternal, "starting the evaluator: "+err.Error()))
		return
	}
	// The hello: read and written before anything is read from stdin, so
	// the host judges the sandbox before the source exists in it, and
	// nothing a program does can change what the host is told.
	sc, helloAt, err := attest(stdout, a.probe, cg, seccompBy)
	a.probe.end()
	if err != nil {
		return // no hello, no response: the host refuses the container
	}
	var pre *preloaded
	if cfg.Preload != nil {
		// Only once the host says the hello passed (one newline): then
		// the image's interpreter starts and imports what it declares,
		// while the request has yet to come. Nothing of it exists here.
		if err := awaitReady(stdin, cfg.Idle); err != nil {
			r.send(failure(protocol.ErrRequest, err.Error()))
			return
		}
		pre, _ = startPreload(cfg.Exec, cfg.Preload, cfg.Threads, cg) // nil: the program starts cold
		defer pre.abortUnused()
	}
	in, err := readRequestWithin(stdin, cfg.Idle, cfg.Timeout, a.starlark)
	if err != nil {
		r.send(failure(protocol.ErrRequest, err.Error()))
		return
	}
	// The deadline counts from the request, so a container started ahead
	// of it (a warm pool) gives the program its whole time.
	r.received = time.Now()
	r.handshake = r.received.Sub(helloAt)
	if cfg.Selfcheck {
		r.send(protocol.Response{V: protocol.Version, OK: true, Result: []byte("null")})
		return
	}
	g := &guard{cg: cg, limit: sc.MemoryMax, gvisor: sc.GVisor(), cpu: &meter{cg: cg, limit: cfg.CPUTime, gvisor: sc.GVisor(), memLimit: sc.MemoryMax, own: ownMicros}}
	if err := g.cpu.open(); err != nil {
		r.send(failure(protocol.ErrInternal, err.Error())) // the deferred end aborts the idle child
		return
	}
	r.send(serve(cfg, in, g, a.handOver(), pre.handOver(), r))
	return
}

// ahead is what the runner starts before its hello: the /proc probe, and
// in Starlark mode the idle evaluator, which is the probe too.
type ahead struct {
	starlark bool
	sl       *starlarkChildProc // nil once handed over
	probe    *procProbe
}

// startAhead starts them. The Starlark child is started now, idle until
// it is given the source: its start-up overlaps the attestation and the
// wait for the request.
func startAhead(cfg runargs.Args, cg cgroup) (*ahead, error) {
	a := &ahead{starlark: cfg.Exec == nil && !cfg.Selfcheck}
	if !a.starlark {
		a.probe = startProcProbe()
		return a, nil
	}
	var err error
	a.sl, a.probe, err = startStarlarkChild(cfg.Timeout, cg)
	return a, err
}

// end aborts an evaluator that was never handed its program, then ends
// the probe.
func (a *ahead) end() {
	if a.sl != nil {
		a.sl.abort()
	}
	a.probe.end()
}

// handOver gives the evaluator away: serve's eval reaps it.
func (a *ahead) handOver() *starlarkChildProc {
	sl := a.sl
	a.sl = nil
	return sl
}

// incoming is the request as read: its frame, the host's stop, and what
// follows it on stdin still to read (a check's data, test by test; the
// live frames of an interactive request or an interactor's).
type incoming struct {
	frame protocol.Frame
	stop  time.Duration
	data  io.Reader
}

// serve runs the program under the runner's deadline, or the host's stop
// if that comes first (protocol.WithStop), whose watchdog answers for it
// if it cannot be stopped, and the guard's limits, and returns the
// response.
func serve(cfg runargs.Args, in incoming, g *guard, sl *starlarkChildProc, pre *preloaded, r *responder) protocol.Response {
	req, stop := in.frame.Request, in.stop
	timeout, why := cfg.Timeout, fmt.Errorf("runner deadline of %s", cfg.Timeout)
	if stop > 0 && stop < timeout {
		timeout, why = stop, fmt.Errorf("the host's stop, %s after the request", stop)
	}
	ctx, cancel := context.WithTimeoutCause(context.Background(), timeout, why)
	defer cancel()
	watchdog := time.AfterFunc(timeout+hardStopGrace, func() {
		if r.send(failure(protocol.ErrTimeout, fmt.Sprintf("%s: program did not stop", why))) {
			os.Exit(0)
		}
	})
	defer watchdog.Stop()

	if judged(cfg, req) {
		return judgeRun(ctx, cfg, in, g, pre, r) // a decoy for each of its steps
	}
	if os.Getpid() == 1 && !g.gvisor {
		// Only now, with a program to run: nothing but the idle
		// evaluator is forked before the host has judged the hello.
		// killLeftovers, as PID 1, ends it. Not under gVisor: there the
		// host's OOM killer sees gVisor's processes, never the runner
		// alone, and the guard stops the program before the limit; a
		// fork of the runner's address space is the costliest call the
		// sentry makes for it (and one forked before the hello made the
		// runner's writes to stdout fail in about half the runs).
		startDecoy()
	}
	if cfg.Exec != nil {
		return execute(ctx, cfg.Exec, cfg.Threads, req, g, pre)
	}
	return sl.eval(ctx, req, g)
}

// fromEval puts an evaluation result into the wire format.
func fromEval(r interp.Result) protocol.Response {
	resp := protocol.Response{
		V: protocol.Version, OK: r.Err == nil, Result: r.Value, ResultType: r.Type, ResultRepr: r.Repr,
		Streams: r.Streams,
	}
	if resp.Result == nil {
		resp.Result = []byte("null")
	}
	if r.Err != nil {
		resp.Error = r.Err.Wire()
	}
	return resp
}

// attest reads the sandbox as the runner sees it and writes it as the
// hello line, in one write; it returns what it saw and when the hello was
// written.
func attest(stdout io.Writer, probe *procProbe, cg cgroup, seccompBy string) (hello.Selfcheck, time.Time, error) {
	began := time.Now()
	sc := selfcheck(probe, cg, seccompBy)
	sc.TookMicros = time.Since(began).Microseconds()
	b, err := json.Marshal(hello.Frame{V: protocol.Version, Selfcheck: &sc})
	if err != nil {
		return sc, time.Time{}, err
	}
	_, err = stdout.Write(append(b, '\n'))
	return sc, time.Now(), err
}
