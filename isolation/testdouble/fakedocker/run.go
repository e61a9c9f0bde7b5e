package fakedocker

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// Label keys (dockerargs.LabelRunID, LabelOwner) with their "=".
const (
	labelRunID = "io.synapse-isolation.run-id="
	labelOwner = "io.synapse-isolation.owner="
)

// A runCall is one `docker run`: what its arguments ask for and the file
// that is its container.
type runCall struct {
	state, name, runID, owner string
	memory                    int64
	container                 string
	dies                      bool // the scenario streams die events
}

func newRunCall(state string, args []string) runCall {
	c := runCall{state: state, name: flagValue(args, "--name")}
	for i, a := range args {
		if a == "--label" && i+1 < len(args) && strings.HasPrefix(args[i+1], labelRunID) {
			c.runID = strings.TrimPrefix(args[i+1], labelRunID)
		}
		if a == "--label" && i+1 < len(args) && strings.HasPrefix(args[i+1], labelOwner) {
			c.owner = strings.TrimPrefix(args[i+1], labelOwner)
		}
	}
	mem, _ := limits.ParseBytes(flagValue(args, "--memory"))
	c.memory = int64(mem)
	c.container = filepath.Join(state, "c-"+c.name)
	return c
}

// run plays `docker run` through the scenario's run script; it returns
// the client's exit status.
func (f fake) run(args []string) int {
	c := newRunCall(f.state, args)
	c.dies = f.dies
	s := f.scenario.run
	if _, err := os.Stat(c.container); err == nil {
		fmt.Fprintf(os.Stderr, "docker: Error response from daemon: Conflict. The container name \"/%s\" is already in use.\n", c.name)
		return 125
	}
	if s.refused != nil {
		return c.end(s.refused)
	}
	writeContainer(c.container, c.runID+"\t0\trunning\t"+c.owner)
	if s.unstarted != nil {
		return c.end(s.unstarted)
	}
	appendFile(filepath.Join(f.state, started), c.runID+"\n")
	if s.warning != "" {
		os.Stderr.WriteString(s.warning)
	}
	time.Sleep(s.start)
	hello := s.hello
	if hello == nil {
		hello = perfectHello
	}
	if h := hello(c.memory); h != "" {
		os.Stdout.WriteString(h)
	}
	time.Sleep(s.pause)
	if s.early != nil {
		return c.end(s.early)
	}
	in, _ := io.ReadAll(os.Stdin)
	appendFile(filepath.Join(f.state, stdinLog), string(in))
	mode, r := f.mode, s.reply
	if s.bySource {
		var req struct{ Source string }
		_ = json.Unmarshal(in, &req)
		mode, r = req.Source, scenarios[req.Source].run.reply
	}
	if r == nil {
		r = unknownMode(mode)
	}
	return c.end(r)
}

// end ends the container as the reply says, removing it as --rm does
// unless it outlives the client.
func (c runCall) end(r *reply) int {
	if r.act != nil {
		return r.act(c)
	}
	defer appendFile(filepath.Join(c.state, endedLog), c.runID+"\n")
	waitUntil(func() bool { return lines(filepath.Join(c.state, endedLog)) >= r.afterOthers })
	time.Sleep(r.delay)
	if r.stdout != "" {
		os.Stdout.WriteString(r.stdout)
	}
	if r.stderr != "" {
		os.Stderr.WriteString(r.stderr)
	}
	if r.kept {
		return r.code
	}
	if c.dies {
		appendFile(filepath.Join(c.state, dieLog), fmt.Sprintf("%s %s %d\n", c.owner, c.runID, r.code))
	}
	if r.held {
		waitUntil(func() bool { _, err := os.Stat(filepath.Join(c.state, "release-"+c.runID)); return err == nil })
	}
	os.Remove(c.container)
	return r.code
}

// waitUntil polls cond until it holds, a minute at the most: a fake that
// waits for the test never outlives it by much.
func waitUntil(cond func() bool) {
	for end := time.Now().Add(time.Minute); !cond() && time.Now().Before(end); {
		time.Sleep(5 * time.Millisecond)
	}
}

// flood writes output until the reader gives up.
func flood(runCall) int {
	chunk := strings.Repeat("x", 64<<10)
	for {
		if _, err := os.Stdout.WriteString(chunk); err != nil {
			return 1
		}
	}
}

// startLateCreate leaves word that the container's create is still in
// flight (lateLog), creating nothing: the next `docker ps` lands it once
// it has answered (landLateCreate), as a create the daemon was still
// processing when the client died lands after the supervisor's first
// listing. The client hangs until it is killed.
func startLateCreate(c runCall) int {
	appendFile(filepath.Join(c.state, lateLog), c.name+"\t"+c.runID+"\n")
	time.Sleep(time.Hour)
	return 0
}
