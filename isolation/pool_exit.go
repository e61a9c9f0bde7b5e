package isolation

import "fmt"

// exitedClean waits for a warm run's container to exit after its request
// was sent, and returns its response when its line may be answered now:
// its die event said 0 (so no OOM kill or other stop ended it), its
// response line ended, and nothing aborted the run. Otherwise (ok false)
// the client is waited for, as in a cold run (attempt.complete).
func exitedClean(l *launched, died <-chan int) (resp []byte, ok bool) {
	select {
	case code := <-died:
		if code != 0 {
			return nil, false
		}
	case <-l.done:
		return nil, false
	}
	select {
	case <-l.resp.ended:
	case <-l.done:
		return nil, false
	}
	if l.cause() != nil || l.interrupted() != nil {
		return nil, false
	}
	return l.resp.Bytes(), true
}

// settle finishes a run answered at its container's exit (exited): docker
// run's clean exit confirms its --rm removal; anything else has the
// container removed and confirmed gone. Only then is its slot free, so
// Close, which waits for it, returns after every removal. What it could
// not confirm, or response bytes that came after the answered ones,
// Close returns.
func (p *Pool) settle(w *warm, answered int) {
	defer p.running.Done()
	defer p.release(w.e)
	l := w.l
	f := l.gather()
	l.teardown(&f)
	p.note(f.rmErr)
	if n := len(l.resp.Bytes()); n != answered {
		p.note(&Error{Verdict: SandboxFailure, Err: fmt.Errorf("run %s: the runner wrote %d bytes more after its response line, which was answered already",
			l.plan.RunID, n-answered)})
	}
}
