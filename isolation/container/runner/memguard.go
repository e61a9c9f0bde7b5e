package main

import (
	"fmt"
	"sync"
	"time"
)

// Guard thresholds. Near a cgroup v1 memory limit the kernel may evict and
// re-read the runner's own code pages for a long time instead of killing
// anything (seen here: 63.85 of 64 MiB, major faults climbing by about
// 12,800 a second, until the deadline), and the daemon's oom event is lost
// under load. So the runner watches its cgroup itself and stops the
// program first, with evidence of its own.
const (
	guardEvery = 10 * time.Millisecond
	// guardFast is the poll interval once anonymous memory passes half the
	// limit: a program that allocates fast crosses the headroom between two
	// slow polls and leaves the kill to the kernel.
	guardFast = 2 * time.Millisecond
	// guardIdle is the poll interval while the cgroup uses less than a
	// quarter of the limit: every wake-up is CPU time the program is
	// charged (about 0.2 ms here: polled every 25 ms, a sleeping program
	// was charged 9 ms a second, every 200 ms 1 ms). A program that fills
	// the rest faster meets the kernel's OOM killer, which takes it (its
	// score is 1000) and which the cgroup's counter reports; the guard is
	// for the slow end, the thrashing near the limit, which it still sees.
	guardIdle = 100 * time.Millisecond
	// guardCPU is the poll interval, memory low, with a CPU-time limit to
	// keep: the limit is kept within this and a kill.
	guardCPU = 25 * time.Millisecond
	// thrashWindow and thrashFaults: this many major faults within the
	// window, with anonymous memory past thrashShare of the limit, is
	// thrashing.
	thrashWindow = 100 * time.Millisecond
	thrashFaults = 200
	thrashShare  = 0.75
)

// headroom is how close anonymous memory may come to the limit before the
// guard stops the program: a sixteenth of the limit, at least 4 MiB, so
// the runner itself never has to fight for pages.
func headroom(limit int64) int64 { return max(limit/16, 4<<20) }

// gvisorHeadroom is headroom under gVisor, where the guard judges the
// sandbox's whole usage as gVisor counts it (memory.usage_in_bytes: the
// pages of its memory file, the program's and its /tmp files alike). No
// OOM killer inside the sandbox takes the program alone: past the limit
// the host kills the whole sandbox, the runner with it. The host charges
// the sentry's own memory too, which gVisor's count leaves out (the host
// killed the sandbox at 4 to 14 MiB below the limit by that count, at
// 64m, 128m and 512m alike), and a program allocating at full speed runs
// up to 14 MiB past the threshold before a poll sees it (Starlark's
// 'x' * (512 << 20) at 128m). A 16 MiB reserve lost 2 runs of 20 to the
// host's kill; an eighth of the limit, at least 32 MiB, none (36 Starlark
// runs at 64m, 128m and 512m, 15 Python ones allocating slowly, at once
// and from 4 threads).
func gvisorHeadroom(limit int64) int64 { return max(limit/8, 32<<20) }

// gvisorFillRate is the fastest a program fills memory under gVisor with
// one CPU, in bytes a millisecond: Starlark's string repeat about 1.4 MiB,
// Python's bytearray 0.8. Every read of gVisor's usage costs the program
// about 0.2 ms of CPU time (gVisor scans its memory file), and a wake-up
// about 0.3 ms more: a sleeping program polled every 2 ms was charged
// 0.75 s a second. So the guard looks again only when a program at this
// rate could have used the room left (gvisorNext): a sleeping Python
// program at 128m is charged 0.06 s a second for it.
const gvisorFillRate = 2 << 20

// gvisorNext is when to look again under gVisor, using use of limit with
// reserve kept: the time the room left lasts at gvisorFillRate, within
// guardFast and guardIdle.
func gvisorNext(limit, reserve, use int64) time.Duration {
	room := max(limit-reserve-use, 0)
	return min(max(time.Duration(room/gvisorFillRate)*time.Millisecond, guardFast), guardIdle)
}

// guard watches the cgroup while a child runs and calls stop, once, when
// anonymous memory comes within headroom of the limit, the cgroup
// thrashes, or the program reaches its CPU-time limit (cpu). Why it
// stopped is kept for the response.
type guard struct {
	cg    cgroup
	limit int64
	cpu   *meter
	// gvisor: the runner runs under gVisor (its hello said so), whose
	// cgroupfs has memory.usage_in_bytes but no memory.stat.
	gvisor bool

	mu     sync.Mutex
	reason string // memory exhausted
	cpuHit string // the CPU-time limit reached
}

// watch polls until done is closed. Its steady state allocates nothing,
// in Go or in the kernel (open files, read again at offset 0 into fixed
// buffers): near the limit every new page the runner needs could be the
// one that makes the kernel kill the runner instead of the program.
func (g *guard) watch(done <-chan struct{}, stop func()) {
	w := g.open()
	defer w.close()
	if w.stat == nil && !w.whole && !w.cpuLimited {
		return
	}
	timer := time.NewTimer(guardEvery)
	defer timer.Stop()
	for {
		select {
		case <-done:
			return
		case now := <-timer.C:
			next, stopped := w.poll(now, stop)
			if stopped {
				return
			}
			timer.Reset(next)
		}
	}
}

// watcher is a guard's open files and its judge while it watches.
type watcher struct {
	g     *guard
	stat  *statReader // nil: memory.stat is not read
	total *cgroupFile // nil: the cheap bound is not known
	// whole: memory is judged on total itself (under gVisor, which has
	// no memory.stat); otherwise total only spares reads of the stat.
	whole      bool
	cpuLimited bool
	j          judge
}

// open opens the files watch reads, once, before it polls.
func (g *guard) open() *watcher {
	w := &watcher{g: g, cpuLimited: g.cpu != nil && g.cpu.limit > 0, j: judge{limit: g.limit}}
	if g.limit <= 0 { // no limit visible: the attestation already refuses the run
		return w
	}
	if sr, err := g.cg.openStat(); err == nil {
		w.stat = sr
	}
	// The cgroup's whole usage, page cache included, is a cheap upper
	// bound of anonymous memory (one counter, where memory.stat is summed
	// up by the kernel on every read): below half the limit, where neither
	// headroom nor thrashing can be near, memory.stat is not read at all.
	if n, err := g.cg.openUsage(); err == nil {
		w.total = n
	}
	if g.gvisor && w.stat == nil && w.total != nil {
		w.whole, w.j.reserve = true, gvisorHeadroom(g.limit)
	}
	return w
}

func (w *watcher) close() {
	if w.stat != nil {
		w.stat.close()
	}
	if w.total != nil {
		w.total.close()
	}
}

// poll takes one look at the cgroup at now: it stops the program (stop,
// and the reason kept) and reports stopped, or returns when to look next.
func (w *watcher) poll(now time.Time, stop func()) (next time.Duration, stopped bool) {
	g := w.g
	next = guardEvery
	if w.cpuLimited {
		if why := g.cpu.over(); why != "" {
			stop()
			g.set(&g.cpuHit, why)
			return 0, true
		}
	}
	use, known := read(w.total)
	switch low := known && use < g.limit/4; {
	case w.whole:
		if !known {
			return guardIdle, false
		}
		// gVisor counts no major faults: the thrashing rule never fires.
		if why, _ := w.j.observe(now, use, 0); why != "" {
			stop()
			g.set(&g.reason, why)
			return 0, true
		}
		next = gvisorNext(g.limit, w.j.reserve, use)
		if w.cpuLimited {
			next = min(next, guardCPU)
		}
		return next, false
	case low && w.cpuLimited:
		next = guardCPU
	case low:
		next = guardIdle
	}
	if w.stat != nil && !(known && use < g.limit/2) {
		if anon, faults, err := w.stat.usage(); err == nil {
			var why string
			if why, next = w.j.observe(now, anon, faults); why != "" {
				stop()
				g.set(&g.reason, why)
				return 0, true
			}
		}
	}
	return next, false
}

// read reads the cgroup's whole usage from n; known is false when it
// cannot be read.
func read(n *cgroupFile) (use int64, known bool) {
	if n == nil {
		return 0, false
	}
	v, err := n.number()
	return v, err == nil
}

func (g *guard) set(field *string, why string) {
	g.mu.Lock()
	*field = why
	g.mu.Unlock()
}

// judge decides, from one sample of the cgroup after another, whether the
// program must be stopped. It does no I/O and reads no clock: the caller
// passes each sample's time, so tests drive it sample by sample.
type judge struct {
	limit int64
	// reserve is how close to the limit memory may come; zero:
	// headroom(limit).
	reserve int64
	// ring holds the recent samples' fault counts, thrashWindow deep at
	// most (thrashWindow / guardFast samples).
	ring    [64]faultSample
	head, n int
}

type faultSample struct {
	at     time.Time
	faults int64
}

// observe takes one sample: anonymous memory and the major fault count at
// now. It returns why to stop ("" to go on) and when to sample next.
func (j *judge) observe(now time.Time, anon, faults int64) (why string, next time.Duration) {
	next = guardEvery
	if anon >= j.limit/2 {
		next = guardFast
	}
	j.ring[(j.head+j.n)%len(j.ring)] = faultSample{now, faults}
	if j.n < len(j.ring) {
		j.n++
	} else {
		j.head = (j.head + 1) % len(j.ring)
	}
	for j.n > 1 && now.Sub(j.ring[j.head].at) > thrashWindow {
		j.head, j.n = (j.head+1)%len(j.ring), j.n-1
	}
	oldest := j.ring[j.head]
	reserve := j.reserve
	if reserve == 0 {
		reserve = headroom(j.limit)
	}
	switch {
	case anon >= j.limit-reserve:
		return fmt.Sprintf("memory exhausted: %d of %d bytes in use (runner guard)", anon, j.limit), next
	case float64(anon) >= thrashShare*float64(j.limit) && faults-oldest.faults >= thrashFaults:
		return fmt.Sprintf("memory exhausted: thrashing at %d of %d bytes, %d major faults in %s (runner guard)",
			anon, j.limit, faults-oldest.faults, now.Sub(oldest.at).Round(time.Millisecond)), next
	}
	return "", next
}

// stopped returns why the guard stopped the child, memory or CPU time;
// each "" if not that.
func (g *guard) stopped() (memory, cpu string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.reason, g.cpuHit
}
