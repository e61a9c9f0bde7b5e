package relay

import "github.com/synapse-lang/synapse-isolation/limits"

// End is what the relay saw of an interactive test's end: the facts
// its verdict is decided on beside the two sides' own accounts
// (the host's test facts).
//
// First is the side whose end the relay saw first: its =shut (its
// stdout ended) or its =done (its processes are gone), whichever came
// first, or its whole run's end (Gone). It is noted before the relay
// passes that end on, and a side reads the other's end (its stdin's
// EOF, an =end) only from the relay, so whatever a side did because the
// other had ended (a crash at the end of its input, a wait until it was
// stopped) comes after the other's end in the relay's order, every run:
// a program that raises at the end of its input never ended first.
// Only two ends that neither caused can come in either order.
type End struct {
	First int   // the side that ended first; -1: neither has
	Sent  int64 // the bytes of the program's stdout given to the interactor
	Cut   bool  // the program passed limits.MaxInteractedOutput, and was stopped
}

// ended notes that side k ended test i, unless a side did already.
func (r *Relay) ended(i, k int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.endedLocked(i, k)
}

// endedLocked is ended with r.mu held; a test i of -1 (none) is none.
func (r *Relay) endedLocked(i, k int) {
	if i >= 0 && i < len(r.ends) && r.ends[i].First < 0 {
		r.ends[i].First = k
	}
}

// given is what of b, side k's output in test i, the other side is
// given, whether to send it, and whether the program just passed its
// bound (cut). The interactor's is given whole: it is trusted. The
// program's is counted while the interactor's test goes (after its
// =done nothing reads it, and it is dropped) and given up to
// limits.MaxInteractedOutput; past it, the program ended first (if no
// side had) and its stdout is dropped. A cut program's stream is one its
// interactor never saw whole, as a checker is never shown a cut output.
func (r *Relay) given(k, i int, b []byte) (keep []byte, send, cut bool) {
	if k == Interactor {
		return b, true, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	e := &r.ends[i]
	if e.Cut || r.going[Interactor] != i {
		return nil, false, false
	}
	room := limits.MaxInteractedOutput - e.Sent
	if int64(len(b)) <= room {
		e.Sent += int64(len(b))
		return b, true, false
	}
	e.Sent, e.Cut = limits.MaxInteractedOutput, true
	r.endedLocked(i, Program)
	return b[:room], room > 0, true
}

// Ends are the relay's facts of each test's end, once both runs
// ended.
func (r *Relay) Ends() []End {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]End(nil), r.ends...)
}
