package isolation

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// DefaultIdle is how long a pool's container waits for its request before
// it ends on its own.
const DefaultIdle = 60 * time.Second

// idleMargin: a ready container this close to its idle cap is not given a
// request; it may end before the request reaches it.
const idleMargin = 5 * time.Second

// minIdle is the shortest idle cap a pool serves: below twice the margin,
// a container would be too close to its cap soon after it started, every
// one would be discarded, and no request would ever get one.
const minIdle = 2 * idleMargin

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
	// Idle caps how long a ready container waits; zero means DefaultIdle.
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
	o       PoolOptions
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
	client  *client
	engine  Engine
	busy    int   // outstanding containers, ready or running; guarded by Pool.mu
	dropped error // why the pool stopped using it; guarded by Pool.mu
}

// warm is one ready container: its hello passed.
type warm struct {
	l         *launched
	e         *poolEngine
	selfcheck *protocol.Selfcheck // from its hello
}

// NewPool checks every engine (reachable, image present locally: nothing
// is ever pulled) and starts filling the pool. ctx ends every container
// of the pool (a signal, say); Close must be called either way.
func NewPool(ctx context.Context, o PoolOptions) (*Pool, error) {
	if o.Parallel == 0 {
		o.Parallel = 1
	}
	if o.Parallel < 0 || o.Parallel > limits.MaxParallel {
		return nil, &Error{Verdict: Rejected, Err: &limits.FieldError{Field: "parallel", Value: strconv.Itoa(o.Parallel),
			Msg: fmt.Sprintf("must be from 1 to %d", limits.MaxParallel)}}
	}
	if o.Idle == 0 {
		o.Idle = DefaultIdle
	}
	if o.Idle < minIdle || o.Idle > limits.MaxIdle {
		return nil, &Error{Verdict: Rejected, Err: &limits.FieldError{Field: "idle", Value: o.Idle.String(),
			Msg: fmt.Sprintf("must be from %s to %s", minIdle, limits.MaxIdle)}}
	}
	if len(o.Engines) == 0 {
		o.Engines = []Engine{o.Run.Engine}
	}
	o.Run = o.Run.ownedBySelf()
	o.Run.idle = o.Idle
	var err error
	if o.Run, err = o.Run.withProfile(); err != nil {
		return nil, &Error{Verdict: SandboxFailure, Err: err}
	}
	if _, err := newPlan(o.Run, time.Now()); err != nil {
		return nil, &Error{Verdict: Rejected, Err: err}
	}
	p := &Pool{o: o, ready: make(chan *warm, o.Parallel), tokens: make(chan struct{}, o.Parallel), dead: make(chan struct{}),
		closed: make(chan struct{})}
	p.demand = sync.NewCond(&p.mu)
	for _, e := range o.Engines {
		c, err := newClient(e)
		if err != nil {
			return nil, err
		}
		if err := checkProxies(c.env); err != nil {
			return nil, err
		}
		if err := checkEngine(ctx, c, o.Run.Image); err != nil {
			return nil, err
		}
		p.engines = append(p.engines, &poolEngine{client: c, engine: e})
	}
	p.ctx, p.cancel = context.WithCancel(ctx)
	for i := 0; i < o.Parallel; i++ {
		p.tokens <- struct{}{}
	}
	p.wg.Add(1)
	go p.fill()
	return p, nil
}

// checkEngine asks the engine whether it answers and has the image.
func checkEngine(ctx context.Context, c *client, image string) error {
	qctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	where := "the current engine"
	if c.context != "" {
		where = "context " + c.context
	}
	if _, err := c.output(qctx, "version", "--format", "{{.Server.Version}}"); err != nil {
		return &Error{Verdict: EngineFailure, Err: fmt.Errorf("%s: unreachable: %w", where, err)}
	}
	out, err := c.output(qctx, "image", "inspect", "--format", "{{.Id}}", image)
	if err != nil || strings.TrimSpace(out) != image {
		return &Error{Verdict: EngineFailure, Err: fmt.Errorf("%s: image %s is not present (nothing is pulled): %v", where, image, err)}
	}
	return nil
}

// fill starts a container whenever a token is free, on the engine with
// the fewest outstanding containers, and has its hello judged.
func (p *Pool) fill() {
	defer p.wg.Done()
	for {
		select {
		case <-p.ctx.Done():
			return
		case <-p.dead:
			return
		case <-p.tokens:
		}
		p.mu.Lock()
		// Draining, a container is started only for a request that waits
		// for one and will not get one of the ready ones.
		for p.draining && !p.closing && p.takers <= p.readyN && p.pick() != nil {
			p.demand.Wait()
		}
		e := p.pick()
		if p.closing || e == nil {
			p.mu.Unlock()
			return
		}
		e.busy++
		p.mu.Unlock()
		o := p.o.Run
		o.Engine, o.Name, o.RunID = e.engine, "", ""
		o, err := o.withProfile()
		var plan runPlan
		if err == nil {
			plan, err = newPlan(o, time.Now())
		}
		var l *launched
		if err == nil {
			l, err = launch(p.ctx, e.client, &plan)
		}
		if err != nil {
			if p.ctx.Err() != nil { // the pool is closing: no engine's fault
				p.release(e)
				return
			}
			p.drop(e, err)
			p.release(e)
			continue
		}
		w := &warm{l: l, e: e}
		p.mu.Lock()
		if p.closing {
			p.mu.Unlock()
			p.note(p.discard(w))
			p.release(e)
			return
		}
		p.readyN++
		p.mu.Unlock()
		p.wg.Add(1)
		go p.admit(w)
	}
}

// pick returns the engine still in use with the fewest outstanding
// containers, nil when every engine was dropped. p.mu is held.
func (p *Pool) pick() *poolEngine {
	var e *poolEngine
	for _, c := range p.engines {
		if c.dropped == nil && (e == nil || c.busy < e.busy) {
			e = c
		}
	}
	return e
}

// admit judges a new container's hello before any request can be given
// to it. A container that fails is refused and removed, and its engine
// dropped: an engine that ran one container outside the policy is not
// trusted with the next.
func (p *Pool) admit(w *warm) {
	defer p.wg.Done()
	a := &attempt{start: w.l.at}
	err := a.handshake(w.l, w.l.at.Add(startBound), startBound)
	if err == nil {
		w.selfcheck = a.selfcheck
		p.ready <- w // never blocks: ready holds as many as there are tokens
		return
	}
	p.mu.Lock()
	p.readyN--
	p.mu.Unlock()
	if p.ctx.Err() == nil { // not the pool closing
		p.drop(w.e, err)
	} else if u := (*unconfirmedError)(nil); errors.As(err, &u) {
		p.note(err)
	}
	p.release(w.e)
}

// drop stops using e; when no engine is left, every request waiting or to
// come gets err.
func (p *Pool) drop(e *poolEngine, err error) {
	p.mu.Lock()
	first := e.dropped == nil
	if first {
		e.dropped = err
	}
	alive := p.pick() != nil
	p.demand.Broadcast()
	p.mu.Unlock()
	if first && p.o.OnDrop != nil {
		p.o.OnDrop(e.engine, err)
	}
	if !alive {
		p.dieOnce.Do(func() {
			p.deadErr = err
			close(p.dead)
		})
	}
}

// Drain tells the pool that no requests will come beyond those already
// running or waiting: from then on it starts a container only for a
// request that waits without one.
func (p *Pool) Drain() {
	p.mu.Lock()
	p.draining = true
	p.mu.Unlock()
}

// release frees e's count and a token for the next container.
func (p *Pool) release(e *poolEngine) {
	p.mu.Lock()
	e.busy--
	p.mu.Unlock()
	p.tokens <- struct{}{}
}

// discard ends a ready container that will get no request and confirms it
// gone.
func (p *Pool) discard(w *warm) error {
	w.l.kill()
	_, err := w.l.remove(time.Now())
	return err
}

// take returns the next ready container young enough to get a request,
// ending the ones too close to their idle cap; once every engine was
// dropped, it returns why.
func (p *Pool) take(ctx context.Context) (*warm, error) {
	p.mu.Lock()
	p.takers++
	p.demand.Broadcast()
	p.mu.Unlock()
	for {
		select {
		case <-ctx.Done():
			p.mu.Lock()
			p.takers--
			p.mu.Unlock()
			return nil, &Error{Verdict: Interrupted, Err: context.Cause(ctx)}
		case <-p.dead:
			p.mu.Lock()
			p.takers--
			p.mu.Unlock()
			return nil, p.deadErr
		case <-p.closed:
			p.mu.Lock()
			p.takers--
			p.mu.Unlock()
			return nil, errPoolClosed
		case w := <-p.ready:
			p.mu.Lock()
			p.readyN--
			expired := time.Since(w.l.at) > p.o.Idle-idleMargin
			if !expired {
				p.takers--
			}
			p.mu.Unlock()
			if expired {
				p.note(p.discard(w))
				p.release(w.e)
				continue
			}
			return w, nil
		}
	}
}

// Run runs req in the next ready container. readAt is when the request
// was read; the result's wait_ms counts from it.
func (p *Pool) Run(ctx context.Context, req Request, readAt time.Time) (Result, error) {
	a := &attempt{start: readAt}
	err := p.run(ctx, a, req)
	return a.result(err), err
}

func (p *Pool) run(ctx context.Context, a *attempt, req Request) error {
	body, err := encode(req, p.o.Run.Exec)
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
	defer p.running.Done()
	w, err := p.take(ctx)
	if err != nil {
		return err
	}
	defer p.release(w.e)
	a.assigned = time.Now()
	a.plan, a.sandboxed, a.selfcheck = w.l.plan, true, w.selfcheck
	// The request's context holds until the response: ended, the client
	// is killed and the container removed, and the run is interrupted.
	stop := context.AfterFunc(ctx, func() { w.l.abort(&requestEnded{cause: context.Cause(ctx)}) })
	defer stop()
	w.l.send(body, a.assigned.Add(w.l.plan.Limits.Timeout))
	return a.complete(w.l)
}

// errPoolClosed answers a request that comes, or still waits for a
// container, once Close was called.
var errPoolClosed = &Error{Verdict: Interrupted, Err: errors.New("the pool was closed")}

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
