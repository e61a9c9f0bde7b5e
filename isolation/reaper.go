package isolation

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/docker"
)

// reaperArg0 is a reaper's argv[0]: this process's own executable,
// started again through /proc/self/exe (there even if the file was
// replaced since), which this package's init turns into the reaper before
// the program's main runs: the tool, a test binary, any program built
// with this package.
const reaperArg0 = "synapse-isolation-reaper"

func init() {
	if len(os.Args) > 0 && os.Args[0] == reaperArg0 {
		os.Exit(reap(os.Args[1:], os.Stdin))
	}
}

// reap is the reaper's whole life. Its arguments are the run id, the
// docker CLI and its --context, if any; its stdin carries lines from the
// supervisor: the pid of the run's docker client, then "done" once the
// supervisor confirmed the container gone. EOF without "done" means the
// supervisor died (SIGKILL: none of its own cleanup ran) or could not
// confirm the removal: the reaper then runs the supervisor's own removal
// loop (removal), the client counted gone once no process has its pid,
// and without a limit on failed listings: it has nobody to report to, so
// it goes on until cleanupTimeout.
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
	if _, err := (removal{c: c, runID: runID, clientGone: clientGone}).run(); err != nil {
		return 1
	}
	return 0
}

// reaper is a run's second, independent end: a process of its own session,
// so it outlives this one, that removes the run's container if this
// process dies before it confirmed the container gone. The runner's own
// deadline ends the container too, but that is the container's word; the
// reaper is the host's.
type reaper struct {
	cmd    *exec.Cmd
	w      *os.File
	once   sync.Once
	exited chan struct{} // closed once the reaper was waited for
}

// newReaper starts the reaper of runID on c's engine.
func newReaper(c *docker.Client, runID string) (*reaper, error) {
	cmd, w, err := c.StartReaper(reaperArg0, runID)
	if err != nil {
		return nil, err
	}
	return &reaper{cmd: cmd, w: w, exited: make(chan struct{})}, nil
}

// watch names the run's docker client, which the reaper waits out.
func (r *reaper) watch(pid int) {
	_, _ = r.w.WriteString(strconv.Itoa(pid) + "\n")
}

// settle ends this process's part: with the container confirmed gone the
// reaper stands down at once; otherwise it starts removing now. Either way
// it is waited for in the background, so it is never left a zombie.
func (r *reaper) settle(confirmed bool) {
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
