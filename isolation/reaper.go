package isolation

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"

	"github.com/synapse-lang/synapse-isolation/dockerargs"
)

// reaperScript removes a run's containers once its supervisor is gone
// without having confirmed them gone. It reads lines on stdin: the pid of
// the run's docker client, then "done" once the supervisor confirmed the
// container gone. EOF without "done" means the supervisor died (SIGKILL:
// none of its own cleanup ran) or could not confirm the removal. It then
// lists the run's containers by run id and removes them, until none is
// listed for two rounds after the client ended (a create the client sent
// may still land), for at most 30 rounds of half a second.
//
// $1 is the run id; the rest is the docker CLI and its --context.
const reaperScript = `id=$1; shift
pid=
while IFS= read -r line; do
  case $line in done) exit 0;; *) pid=$line;; esac
done
quiet=0 n=0
while [ $n -lt 30 ]; do
  ids=$("$@" ps --all --quiet --no-trunc --filter "label=` + dockerargs.LabelRunID + `=$id" 2>/dev/null)
  if [ -n "$ids" ]; then
    "$@" rm -f $ids >/dev/null 2>&1; quiet=0
  elif [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    quiet=0
  else
    quiet=$((quiet+1)); [ $quiet -ge 2 ] && exit 0
  fi
  n=$((n+1)); sleep 0.5 2>/dev/null || sleep 1
done
`

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

// startReaper starts the reaper of runID on c's engine.
func (c *client) startReaper(runID string) (*reaper, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("reaper pipe: %w", err)
	}
	defer r.Close()
	args := append([]string{"-c", reaperScript, "reaper", runID, c.path}, c.withContext()...)
	cmd := exec.Command("/bin/sh", args...)
	cmd.Env = c.env
	cmd.Stdin = r
	// Its own session: a signal to this process's group (a Ctrl-C, a
	// kill of the group) does not reach it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("starting the run's reaper: %w", err)
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
