package removal

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/docker"
)

// reaperArg0 is a reaper's argv[0]: this process's own executable,
// started again through /proc/self/exe (there even if the file was
// replaced since), which the program's entry point turns into the reaper
// (Reap) before it does anything else.
const reaperArg0 = "synapse-isolation-reaper"

// entry is set once the program's entry point has asked Reap whether this
// process is a reaper (cli.Main does, first thing): only then may a run
// start its reaper as this same executable. A program that embeds the
// library without that entry would run its own main again, under a
// reaper's arguments, so its runs start no reaper (StartReaper); the
// runner's own deadline and gc still end their containers. It is
// process-wide because what it records is: which main this executable
// runs.
var entry atomic.Bool

// Reap is the reaper's entry point, which a program that runs containers
// calls first thing with its arguments (program name first) and stdin:
// when args[0] names the reaper, this process is one, and Reap runs it to
// its end and returns its exit status, ok true; otherwise it returns at
// once, ok false, and from then on the program's runs start their
// reapers as this executable.
func Reap(args []string, stdin io.Reader) (code int, ok bool) {
	if len(args) > 0 && args[0] == reaperArg0 {
		return reap(args[1:], stdin), true
	}
	entry.Store(true)
	return 0, false
}

// reap is the reaper's whole life. Its arguments are the run id, the
// docker CLI and its --context, if any; its stdin carries lines from the
// supervisor: the pid of the run's docker client, then "done" once the
// supervisor confirmed the container gone. EOF without "done" means the
// supervisor died (SIGKILL: none of its own cleanup ran) or could not
// confirm the removal: the reaper then runs the supervisor's own removal
// loop (Loop), the client counted gone once no process has its pid,
// and without a limit on failed listings: it has nobody to report to, so
// it goes on until CleanupTimeout.
func reap(args []string, stdin io.Reader) int {
	runID, c, ok := docker.ReaperClient(args, os.Environ())
	if !ok {
		fmt.Fprintln(os.Stderr, "usage: "+reaperArg0+" RUN-ID DOCKER [--context NAME]")
		return 2
	}
	pid := 0
	sc := bufio.NewScanner(stdin)
	for sc.Scan() {
		if sc.Text() == "done" {
			return 0
		}
		pid, _ = strconv.Atoi(sc.Text())
	}
	var gone time.Time
	clientGone := func() (time.Time, bool) {
		// EPERM: a process of another user has the pid, so it runs.
		if gone.IsZero() && (pid <= 0 || syscall.Kill(pid, 0) == syscall.ESRCH) {
			gone = time.Now()
		}
		return gone, !gone.IsZero()
	}
	if _, err := (Loop{Client: c, RunID: runID, ClientGone: clientGone}).Run(); err != nil {
		return 1
	}
	return 0
}

// Reaper is a run's second, independent end: a process of its own session,
// so it outlives this one, that removes the run's container if this
// process dies before it confirmed the container gone. The runner's own
// deadline ends the container too, but that is the container's word; the
// reaper is the host's. A nil *Reaper (a program without the entry) does
// nothing.
type Reaper struct {
	cmd    *exec.Cmd
	w      *os.File
	once   sync.Once
	exited chan struct{} // closed once the reaper was waited for
}

// StartReaper starts the reaper of runID on c's engine; it returns nil,
// and starts none, when the program's entry point never called Reap.
func StartReaper(c *docker.Client, runID string) (*Reaper, error) {
	if !entry.Load() {
		return nil, nil
	}
	cmd, w, err := c.StartReaper(reaperArg0, runID)
	if err != nil {
		return nil, err
	}
	return &Reaper{cmd: cmd, w: w, exited: make(chan struct{})}, nil
}

// Watch names the run's docker client, which the reaper waits out.
func (r *Reaper) Watch(pid int) {
	if r == nil {
		return
	}
	_, _ = r.w.WriteString(strconv.Itoa(pid) + "\n")
}

// Settle ends this process's part: with the container confirmed gone the
// reaper stands down at once; otherwise it starts removing now. Either way
// it is waited for in the background, so it is never left a zombie.
func (r *Reaper) Settle(confirmed bool) {
	if r == nil {
		return
	}
	r.once.Do(func() {
		if confirmed {
			_, _ = r.w.WriteString("done\n")
		}
		_ = r.w.Close()
		go func() {
			_ = r.cmd.Wait()
			close(r.exited)
		}()
	})
}
