package isolation

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/removal"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/supervisor"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

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
		pend, err := e.plan.next()
		var l *supervisor.Launched
		var died <-chan int
		if err == nil {
			plan := pend.render(p.runner, time.Now())
			died = e.exits.Expect(plan.RunID) // before the container exists: its die cannot come first
			if l, err = supervisor.Launch(p.ctx, e.client, &plan); err != nil {
				e.exits.Forget(plan.RunID)
			}
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
		w := &warm{l: l, e: e, died: died}
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
	a := &attempt{start: w.l.At}
	err := a.handshake(w.l, w.l.At.Add(startBound), startBound)
	if err == nil && w.l.Plan.Runner.Preload != nil {
		// The hello passed: the runner may start its interpreter and
		// import what the image declares. Still nothing of any request.
		err = w.l.Ready()
	}
	if err == nil {
		w.selfcheck = a.selfcheck
		p.ready <- w // never blocks: ready holds as many as there are tokens
		return
	}
	w.forget()
	p.mu.Lock()
	p.readyN--
	p.mu.Unlock()
	if p.ctx.Err() == nil { // not the pool closing
		p.drop(w.e, err)
	} else if u := (*removal.UnconfirmedError)(nil); errors.As(err, &u) {
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
	w.forget()
	w.l.Kill()
	_, err := w.l.Remove(time.Now())
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
			return nil, &Error{Verdict: protocol.Interrupted, Err: context.Cause(ctx)}
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
			expired := time.Since(w.l.At) > p.o.Idle-idleMargin
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

// settle finishes a run answered at its container's exit (Launched.ExitedClean): docker
// run's clean exit confirms its --rm removal; anything else has the
// container removed and confirmed gone. Only then is its slot free, so
// Close, which waits for it, returns after every removal. What it could
// not confirm, or response bytes that came after the answered ones,
// Close returns.
func (p *Pool) settle(w *warm, answered int) {
	defer p.running.Done()
	defer p.release(w.e)
	l := w.l
	f := l.Gather()
	l.Teardown(&f)
	p.note(f.RemovalErr())
	if n := len(l.Resp.Bytes()); n != answered {
		p.note(&Error{Verdict: protocol.SandboxFailure, Err: fmt.Errorf("run %s: the runner wrote %d bytes more after its response line, which was answered already",
			l.Plan.RunID, n-answered)})
	}
}
