package isolation

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/docker"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/removal"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/supervisor"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/hello"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/runargs"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// idleMargin: a ready container this close to its idle cap is not given a
// request; it may end before the request reaches it.
const idleMargin = 5 * time.Second

// The shortest idle cap, limits.MinIdle, is twice the margin: below it, a
// container would be too close to its cap soon after it started, every one
// would be discarded, and no request would ever get one.
// (TestIdleRangeIsTwiceTheMargin holds them together.)

// startBound is how long a pool's container has to start and send its
// hello. A container that does not pass its hello within it drops its
// engine from the pool.
const startBound = 30 * time.Second

// PoolOptions configures a warm pool.
type PoolOptions struct {
	// Run is shared by every request; its Engine is used when Engines is
	// empty, and its Name and RunID are per container, so they are ignored.
	Run Options
	// Engines to spread containers over; each new container goes to the
	// one with the fewest outstanding.
	Engines []Engine
	// Parallel is how many containers may exist at once, ready or running.
	Parallel int
	// Idle caps how long a ready container waits; zero means limits.DefaultIdle.
	// It must be from 10s (twice the 5 s margin within which a ready
	// container is not given a request) to limits.MaxIdle.
	Idle time.Duration
	// OnDrop, if set, is told of each engine the pool stops using: one
	// whose container failed its hello, or that could not start one. The
	// pool goes on with the others; when none is left, every request gets
	// the last engine's failure, and no program runs.
	OnDrop func(e Engine, err error)
}

// Pool runs requests, each in a fresh container used once, from
// containers started ahead of their requests: the runner in each is
// already up, its hello judged and passed, and blocked reading its
// request; its own deadline starts when the request arrives. Every container carries the run-id label, a
// deadline label that includes the idle cap, and the owner label, so gc
// reaps what a killed pool leaves.
type Pool struct {
	o PoolOptions
	// runner is every container's runner command line, checked once
	// (NewPool); each engine's plan is the rest but a container's run id
	// and deadline.
	runner  runargs.Args
	ctx     context.Context
	cancel  context.CancelFunc
	engines []*poolEngine
	ready   chan *warm
	tokens  chan struct{}
	wg      sync.WaitGroup // fill and every admission
	running sync.WaitGroup // requests given a container and not yet answered
	// closed is closed by Close: no request is taken from then on.
	closed chan struct{}
	// dead is closed when every engine was dropped; deadErr, set before,
	// is what each request then gets.
	dead    chan struct{}
	deadErr error
	dieOnce sync.Once

	mu       sync.Mutex
	demand   *sync.Cond // signalled when a request starts waiting, or on Close
	closing  bool
	draining bool // no request is coming beyond those waiting
	takers   int  // requests waiting for a ready container
	// readyN counts the containers in ready or being admitted. It changes
	// under mu together with takers, so fill never sees a request that just
	// took a container as still waiting (len(ready) would already have
	// dropped).
	readyN int
	// unconfirmed are the pool's own removals it could not confirm (of
	// containers no request got), for Close to return.
	unconfirmed []error
}

type poolEngine struct {
	client *docker.Client
	engine Engine
	// plan is the engine's containers' plan, checked once (base.check);
	// each container takes its own run id from it (pending.next).
	plan    pending
	exits   *docker.ExitWatch
	busy    int   // outstanding containers, ready or running; guarded by Pool.mu
	dropped error // why the pool stopped using it; guarded by Pool.mu
}

// warm is one ready container: its hello passed.
type warm struct {
	l         *supervisor.Launched
	e         *poolEngine
	selfcheck *hello.Selfcheck // from its hello
	died      <-chan int       // its container's exit status, from e's exit stream
}

// forget ends the wait for w's exit status.
func (w *warm) forget() { w.e.exits.Forget(w.l.Plan.RunID) }

// NewPool checks every engine (reachable, image present locally: nothing
// is ever pulled) and starts filling the pool. ctx ends every container
// of the pool (a signal, say); Close must be called either way.
func NewPool(ctx context.Context, o PoolOptions) (*Pool, error) {
	return newPool(ctx, o, planInput{owner: removal.SelfLabel()})
}

// newPool is NewPool with the plan's input; the pool sets its idle cap.
func newPool(ctx context.Context, o PoolOptions, in planInput) (*Pool, error) {
	if o.Parallel == 0 {
		o.Parallel = 1
	}
	if err := limits.CheckParallel(o.Parallel); err != nil {
		return nil, &Error{Verdict: protocol.Rejected, Err: err}
	}
	if o.Idle == 0 {
		o.Idle = limits.DefaultIdle
	}
	if err := limits.CheckIdle(o.Idle); err != nil {
		return nil, &Error{Verdict: protocol.Rejected, Err: err}
	}
	if len(o.Engines) == 0 {
		o.Engines = []Engine{o.Run.Engine}
	}
	since := time.Now()
	o.Run.Name = "" // each container is named after its own run id
	in.idle = o.Idle
	// The limits are checked once for the whole pool (newBase), the
	// argv's fields once per engine (check), before docker is asked
	// anything; each container is only named and rendered (fill).
	b, err := newBase(o.Run, in)
	if err != nil {
		return nil, err
	}
	p := &Pool{o: o, ready: make(chan *warm, o.Parallel), tokens: make(chan struct{}, o.Parallel), dead: make(chan struct{}),
		closed: make(chan struct{})}
	p.demand = sync.NewCond(&p.mu)
	if p.engines, err = poolEngines(ctx, b, o.Engines); err != nil {
		return nil, err
	}
	var d docker.Declared
	if b.asks() {
		if d, err = declared(ctx, p.engines[0].client, o.Run.Image); err != nil {
			return nil, err
		}
	}
	if p.runner, err = b.runner(d); err != nil {
		return nil, err
	}
	p.ctx, p.cancel = context.WithCancel(ctx)
	for _, e := range p.engines {
		p.wg.Add(1)
		e.exits = docker.WatchExits(p.ctx, e.client, b.in.owner, since, p.wg.Done)
	}
	for i := 0; i < o.Parallel; i++ {
		p.tokens <- struct{}{}
	}
	p.wg.Add(1)
	go p.fill()
	return p, nil
}

// poolEngines checks each engine's options once (base.check) before
// docker is asked anything, then asks each engine whether it answers and
// has the image (nothing is ever pulled).
func poolEngines(ctx context.Context, b base, engines []Engine) ([]*poolEngine, error) {
	plans := make([]pending, len(engines))
	for i, e := range engines {
		be := b
		be.o.Engine = e
		var err error
		if plans[i], err = be.check(); err != nil {
			return nil, err
		}
	}
	pes := make([]*poolEngine, len(engines))
	for i, e := range engines {
		c, err := clientFor(e)
		if err != nil {
			return nil, err
		}
		if err := checkEngine(ctx, c, b.o.Image); err != nil {
			return nil, err
		}
		pes[i] = &poolEngine{client: c, engine: e, plan: plans[i]}
	}
	return pes, nil
}

// Exec is the command line the pool's programs run under: Options.Exec,
// or the interpreter the image declares; nil for Starlark.
func (p *Pool) Exec() []string { return slices.Clone(p.runner.Exec) }

// Run runs req in the next ready container. readAt is when the request
// was read; the result's wait_ms counts from it.
func (p *Pool) Run(ctx context.Context, req Request, readAt time.Time) (Result, error) {
	if req.Grader != nil {
		// The program in a warm container, its checker or interactor in
		// a cold one of its own on the pool's first engine.
		o := p.o.Run
		if len(p.o.Engines) > 0 {
			o.Engine = p.o.Engines[0]
		}
		return runGraded(ctx, req, checkedRun{start: readAt, options: o, in: planInput{owner: removal.SelfLabel()},
			program: func(a *attempt, prog protocol.Frame) error { return p.run(ctx, a, prog) }})
	}
	a := &attempt{start: readAt, collect: len(req.Collect) > 0, tests: testNames(req)}
	err := p.run(ctx, a, protocol.ProgramFrame(req))
	return a.result(err), err
}

// run runs the program's frame f in the next ready container.
func (p *Pool) run(ctx context.Context, a *attempt, f protocol.Frame) error {
	enc, err := encode(f)
	if err == nil {
		err = enc.checkLanguage(p.runner)
	}
	if err != nil {
		return err
	}
	p.mu.Lock()
	if p.closing {
		p.mu.Unlock()
		return errPoolClosed
	}
	p.running.Add(1)
	p.mu.Unlock()
	w, err := p.take(ctx)
	if err != nil {
		p.running.Done()
		return err
	}
	a.assign(w)
	a.wire(w.l, &enc, len(f.Tests))
	// The request's context holds until the response: ended, the client
	// is killed and the container removed, and the run is interrupted.
	stop := context.AfterFunc(ctx, func() { w.l.EndRequest(context.Cause(ctx)) })
	w.l.Send(enc.body, enc.data, enc.in.Tests == nil, judgedDeadline(f.Request, a.assigned.Add(w.l.Plan.Limits.Timeout), w.l.Plan.Limits.Timeout))
	if resp, ok := w.l.ExitedClean(w.died); ok {
		stop()
		go p.settle(w, len(resp))
		return a.completeAtExit(w.l, resp)
	}
	defer p.running.Done()
	defer p.release(w.e)
	defer w.forget()
	defer stop()
	return a.complete(w.l)
}

// errPoolClosed answers a request that comes, or still waits for a
// container, once Close was called.
var errPoolClosed = &Error{Verdict: protocol.Interrupted, Err: errors.New("the pool was closed")}

// note keeps a removal of the pool's own that was not confirmed.
func (p *Pool) note(err error) {
	if err == nil {
		return
	}
	p.mu.Lock()
	p.unconfirmed = append(p.unconfirmed, err)
	p.mu.Unlock()
}

// Close stops intake (a request that comes or still waits gets
// interrupted), waits for the requests that have a container to finish,
// then stops filling, ends every ready container and confirms each gone.
// It returns every removal of the pool's own it could not confirm. (A
// request's own removal is in its result.)
func (p *Pool) Close() error {
	p.mu.Lock()
	if !p.closing {
		p.closing = true
		close(p.closed)
	}
	p.demand.Broadcast()
	p.mu.Unlock()
	p.running.Wait()
	p.cancel()
	p.wg.Wait()
	// The ready containers are ended in parallel: one at a time, their
	// removals would add up at the end of every batch.
	var wg sync.WaitGroup
	for {
		var w *warm
		select {
		case w = <-p.ready:
			p.mu.Lock()
			p.readyN--
			p.mu.Unlock()
		default:
		}
		if w == nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.note(p.discard(w))
		}()
	}
	wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	return errors.Join(p.unconfirmed...)
}
