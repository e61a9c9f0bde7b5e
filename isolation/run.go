package isolation

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/docker"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/relay"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/removal"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/spool"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/supervisor"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/hello"
)

// Run executes req in a fresh container under the policy and returns one
// verdict. It validates everything before starting any process; on every
// path except a clean exit it removes the run's container and confirms it
// gone before returning. The error is nil exactly for ok and program_error
// results and for a judged request (Result.Tests set, or compile_error),
// whose verdict is its tests'; otherwise it is one of this package's typed
// errors, the same one Result.Verdict names.
//
// A request whose Grader is a Checker runs its program, then its checker
// in a container of its own, which grades the tests the program passed
// through (protocol.Checker's doc); the Result's Checker says how that run went.
// One whose Grader is an Interactor runs its program and its interactor
// at once, each in a container of its own, talking through the host
// (protocol.Interactor's doc); the Result's Interactor says how its run went.
func Run(ctx context.Context, req Request, o Options) (Result, error) {
	in := planInput{owner: removal.SelfLabel()}
	if req.Grader != nil {
		return runGraded(ctx, req, checkedRun{start: time.Now(), options: o, in: in,
			program: func(a *attempt, prog protocol.Frame) error { return a.run(ctx, prog, o, in) }})
	}
	return runWith(ctx, req, o, in)
}

// runWith is Run with the plan's input (a test counts its renders).
func runWith(ctx context.Context, req Request, o Options, in planInput) (Result, error) {
	a := &attempt{start: time.Now(), collect: len(req.Collect) > 0, tests: testNames(req)}
	err := a.run(ctx, protocol.ProgramFrame(req), o, in)
	return a.result(err), err
}

// attempt is one run: what it learned on the way, from which the Result
// is built once, at the end. Its fields are written in this file only;
// what the handshake, the refusal and the judge learn they return.
type attempt struct {
	start time.Time // when Run was called, or the request read (batch)
	end   time.Time // when docker run exited
	// launched, hello, sent and responded time the run: when docker run
	// started, when the hello arrived, when the request was written, when
	// the response began to arrive.
	launched, hello, sent, responded time.Time
	assigned                         time.Time // batch: when the request got its warm container
	elapsed, handshook               time.Duration
	plan                             *supervisor.Plan
	started                          bool // the docker client was started and waited for
	sandboxed                        bool // the hello was judged and passed: only then is the request sent
	exit                             *int
	response                         *protocol.Response // a valid response that Run accepted
	usage                            *Usage             // the program's, from a response within its bounds
	// selfcheck is the runner's view of the sandbox from its hello,
	// accepted or not (doctor lists it either way, selfcheckChecks).
	selfcheck *hello.Selfcheck
	// collect is whether the request named files to return.
	collect bool
	// tests are the names of a judge's request's tests; nil: none.
	tests []string
	// judged is a response's compile step and tests (judgement); nil
	// for a response of neither.
	judged *judgement
	// record is the engine's record of the container where the run's
	// column reads it, and recordErr why it could not be read.
	record    *docker.Record
	recordErr error
	// outputs keeps a checked request's output frames for its checker;
	// nil for any other request.
	outputs *spool.Spool
	// data, for a check, writes its tests' data in place of the
	// request's own (the program's outputs, from the spool).
	data func(io.Writer) error
	// live is an interactive run's side of its relay; nil for any other.
	live *relay.Side
}

// run runs the request frame f: the program's (ProgramFrame), or a
// grader's own run (GraderFrame).
func (a *attempt) run(ctx context.Context, f protocol.Frame, o Options, in planInput) error {
	// The request is encoded once, by the rules every interpreter shares,
	// before the engine is asked which one the image declares; the rules
	// of the program's own language after.
	enc, err := encode(f)
	if err != nil {
		return err
	}
	if a.data != nil {
		enc.data = a.data
	}
	plan, c, err := planOn(ctx, o, in, time.Time{})
	if err != nil {
		return err
	}
	a.plan = &plan
	if err := enc.checkLanguage(plan.Runner); err != nil {
		return err
	}
	l, err := supervisor.Launch(ctx, c, &plan)
	if err != nil {
		return err
	}
	// The hello must come, and pass, within the run's deadline; only then
	// does the source go in.
	if err := a.handshake(l, plan.Deadline, plan.Limits.Timeout); err != nil {
		return err
	}
	a.wire(l, &enc, len(f.Tests))
	l.Send(enc.body, enc.data, enc.in.Tests == nil, judgedDeadline(f.Request, plan.Deadline, plan.Limits.Timeout))
	return a.complete(l)
}

// wire gives a checked request's output frames to its spool, and an
// interactive run's live frames to its relay, whose frames for it follow
// its request's data on its stdin.
func (a *attempt) wire(l *supervisor.Launched, enc *encoded, tests int) {
	if a.outputs != nil {
		l.Resp.TakeOutputs(a.outputs, tests)
	}
	if a.live != nil {
		l.Resp.TakeLive(a.live, tests)
		enc.data = a.live.Stdin(enc.data)
	}
}

// handshake waits for the runner's hello and judges it, and a container whose hello
// did not pass is refused (supervisor's Launched.Handshake). Only when it
// passes is the run ready for its request.
func (a *attempt) handshake(l *supervisor.Launched, deadline time.Time, bound time.Duration) error {
	seen, r, err := l.Handshake(deadline, bound)
	a.launched, a.hello, a.selfcheck, a.record, a.recordErr = seen.Launched, seen.At, seen.Selfcheck, seen.Record, seen.RecordErr
	if r != nil {
		a.ended(r.End, r.Waited, r.Container)
		return err
	}
	a.sandboxed = true
	return nil
}

// ended notes how docker run ended: when, whether it was waited for, and
// its exit status when that is the container's.
func (a *attempt) ended(end supervisor.ClientEnd, waited, container bool) {
	a.end, a.started = end.At, waited
	if container {
		code := end.Code
		a.exit = &code
	}
}

// assign gives the run a warm container, whose hello passed already.
func (a *attempt) assign(w *warm) {
	a.assigned = time.Now()
	a.plan, a.sandboxed, a.selfcheck = w.l.Plan, true, w.selfcheck
}

// judgeGrace is how long past the runner's own deadline the host waits
// for a judge's response: the runner's hard stop (a second past its
// deadline) and a second for the response's way out.
const judgeGrace = 2 * time.Second

// complete finishes a run whose hello passed and whose request was sent:
// it waits for docker run and gathers how it ended (Launched.Gather), tears
// its container down (Launched.Teardown), reads the response of a clean
// exit, and decides the verdict from all of it (Launched.Decide).
func (a *attempt) complete(l *supervisor.Launched) error {
	a.sent = l.Sent
	f := l.Gather()
	end, waited := f.Exit()
	a.ended(end, waited, waited && end.Code >= 0)
	a.responded = l.Resp.Arrived()
	l.Teardown(&f)
	if f.Clean() {
		a.readFrames(&f, l)
	}
	return a.decide(l, f)
}

// readFrames reads the response of a clean exit, unless a checked
// request's output frames before it broke their rules.
func (a *attempt) readFrames(f *supervisor.Facts, l *supervisor.Launched) {
	if err := errors.Join(l.Resp.OutputsErr(), l.Resp.LiveErr()); err != nil {
		f.Refuse(&Error{Verdict: protocol.SandboxFailure, Err: err})
		return
	}
	a.readResponse(f, l.Resp.Bytes())
}

// completeAtExit takes the response of a warm run whose container exited
// 0 with its response line ended (Launched.ExitedClean); the pool tears it down
// afterwards (Pool.settle).
func (a *attempt) completeAtExit(l *supervisor.Launched, resp []byte) error {
	a.ended(supervisor.ClientEnd{At: time.Now()}, true, true)
	a.sent, a.responded = l.Sent, l.Resp.Arrived()
	f := l.Planned()
	a.readFrames(&f, l)
	return a.decide(l, f)
}

// decide is the run's verdict (Launched.Decide), with the daemon's OOM evidence
// asked where a rule needs it.
func (a *attempt) decide(l *supervisor.Launched, f supervisor.Facts) error {
	resp, err := l.Decide(f, a.start)
	if err == nil && resp != nil {
		a.response = resp
	}
	return err
}

// readResponse checks the response of a clean exit and takes what it
// holds (its timings, usage and judgement), or why it was refused.
func (a *attempt) readResponse(f *supervisor.Facts, stdout []byte) {
	resp, err := protocol.DecodeResponse(stdout)
	if err == nil {
		err = protocol.CheckFiles(resp, a.collect)
	}
	if err == nil && a.outputs != nil {
		err = framesAgree(resp.Tests, a.outputs)
	}
	if err != nil {
		f.Refuse(&Error{Verdict: protocol.SandboxFailure, Err: err})
		return
	}
	a.elapsed = time.Duration(resp.ElapsedMicros) * time.Microsecond
	a.handshook = time.Duration(resp.HandshakeMicros) * time.Microsecond
	j, isJudged, err := a.judgement(resp)
	if j.compile != nil || isJudged {
		a.judged = &j
	}
	f.Judged(isJudged)
	if err != nil {
		f.Refuse(err)
		return
	}
	if !isJudged && resp.Error != nil && resp.Error.Type == protocol.ErrCPUTime && a.plan.Limits.CPUTime == 0 {
		f.Refuse(&Error{Verdict: protocol.SandboxFailure, Err: errors.New("response: a CPU-time stop, with no CPU-time limit set")})
		return
	}
	if a.usage, err = a.bound(resp.Usage); err != nil {
		f.Refuse(&Error{Verdict: protocol.SandboxFailure, Err: err})
		return
	}
	f.Accept(&resp)
}
