package isolation

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// reaperScript removes a run's containers once its supervisor is gone
// without having confirmed them gone. It reads lines on stdin: the pid of
// the run's docker client, then "done" once the supervisor confirmed the
// container gone. EOF without "done" means the supervisor died (SIGKILL:
// none of its own cleanup ran) or could not confirm the removal. It then
// lists the run's containers by run id and removes them, with
// the supervisor's own timings: a round every retryEvery, done once none
// was listed for settle after the client ended (a create the client sent
// may still land), for at most cleanupTimeout's worth of rounds and, where
// date(1) tells the time, at most cleanupTimeout: a slow engine (one over
// ssh) makes each round longer, not the reaper's life.
//
// $1 is the run id; the rest is the docker CLI and its --context.
var reaperScript = renderReaperScript()

// renderReaperScript renders the script from the client's own list and rm
// commands (listRunArgs, rmArgs), once: they are the package's constants.
func renderReaperScript() string {
	return `id=$1; shift
pid=
while IFS= read -r line; do
  case $line in done) exit 0;; *) pid=$line;; esac
done
quiet=0 n=0 start=$(date +%s 2>/dev/null)
while [ $n -lt ` + strconv.Itoa(int(cleanupTimeout/retryEvery)) + ` ]; do
  now=$(date +%s 2>/dev/null)
  [ -n "$start" ] && [ -n "$now" ] && [ $((now - start)) -ge ` + strconv.Itoa(int(cleanupTimeout.Seconds())) + ` ] && exit 0
  ids=$("$@" ` + shellWords(listRunArgs("$id")) + ` 2>/dev/null)
  if [ -n "$ids" ]; then
    "$@" ` + shellWords(rmArgs()) + ` $ids >/dev/null 2>&1; quiet=0
  elif [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    quiet=0
  else
    quiet=$((quiet+1)); [ $quiet -ge ` + strconv.Itoa(int(settle/retryEvery)) + ` ] && exit 0
  fi
  n=$((n+1)); sleep ` + strconv.FormatFloat(retryEvery.Seconds(), 'f', -1, 64) + ` 2>/dev/null || sleep 1
done
`
}

// shellWords spells args for the script: a word with a shell variable in
// it is double-quoted (expanded, never split); the others, plain flags and
// values, as they are. The words are this package's own constants.
func shellWords(args []string) string {
	words := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, "\"\\`") {
			panic(fmt.Sprintf("reaper script: unquotable word %q", a))
		}
		words[i] = a
		if strings.ContainsAny(a, "$ \t\n'*?[]{}()<>|&;~#") {
			words[i] = `"` + a + `"`
		}
	}
	return strings.Join(words, " ")
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
func newReaper(c *client, runID string) (*reaper, error) {
	cmd, w, err := c.startReaper(runID)
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
