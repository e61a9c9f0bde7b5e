package docker

import (
	"bufio"
	"context"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ExitWatch follows one engine's die events for a pool's containers (one
// `docker events` stream per engine, by the pool's owner label), so a
// request's line can be answered when its container exits instead of
// when `docker run --rm` has also removed it. It only ever makes an
// answer earlier: a run whose die it does not see (the stream failed to
// start, or ended) waits for its client, as a cold run does.
type ExitWatch struct {
	mu      sync.Mutex
	waiting map[string]chan int // by run id; each gets its container's exit status once
}

// maxExitLine bounds a line of the stream: a run id and an exit status.
const maxExitLine = 256

// WatchExits starts c's stream of the die events of owner's containers
// from since on; ctx ends it, and done is called once it has ended. With
// no owner there is nothing to filter by, and nothing is watched.
func WatchExits(ctx context.Context, c *Client, owner string, since time.Time, done func()) *ExitWatch {
	w := &ExitWatch{waiting: map[string]chan int{}}
	if owner == "" {
		done()
		return w
	}
	cmd, out, err := c.startExitStream(ctx, owner, since)
	if err != nil {
		done()
		return w
	}
	go func() {
		defer done()
		w.follow(out)
		_ = cmd.Wait()
	}()
	return w
}

// follow reads the stream's lines until it ends, handing each exit status
// to the run that expects it.
func (w *ExitWatch) follow(out io.Reader) {
	s := bufio.NewScanner(out)
	s.Buffer(make([]byte, maxExitLine), maxExitLine)
	for s.Scan() {
		runID, status, ok := strings.Cut(s.Text(), " ")
		code, err := strconv.Atoi(status)
		if !ok || err != nil {
			continue
		}
		w.mu.Lock()
		if ch, ok := w.waiting[runID]; ok {
			ch <- code // buffered for one: a run has one container, which dies once
			delete(w.waiting, runID)
		}
		w.mu.Unlock()
	}
}

// Expect registers runID before its container starts and returns where
// its exit status will come; Forget ends the wait.
func (w *ExitWatch) Expect(runID string) <-chan int {
	ch := make(chan int, 1)
	w.mu.Lock()
	w.waiting[runID] = ch
	w.mu.Unlock()
	return ch
}

// Forget drops runID's wait, if it is still there.
func (w *ExitWatch) Forget(runID string) {
	w.mu.Lock()
	delete(w.waiting, runID)
	w.mu.Unlock()
}
