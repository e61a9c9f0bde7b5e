package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// drainGrace bounds how long the runner waits for the output pipe to close
// after the child and its process group are dead.
const drainGrace = time.Second

// supervised is how a child program ended; what it wrote is in the
// sinks its caller gave startChild.
type supervised struct {
	state    *os.ProcessState
	waitErr  error
	timedOut bool
	// timedOutBy is the cause of the deadline that stopped it (a
	// judge's step sets it).
	timedOutBy error
	// oom says why the end was memory exhaustion, with its evidence; "" if
	// it was not.
	oom string
	// cpu says how the program reached its CPU-time limit; "" if it did not.
	cpu string
	// usage is what the program used, read once it was gone.
	usage *protocol.Usage
}

// limitError is the error of a child the runner stopped at one of its
// limits, nil if it ended by itself: memory (with the evidence), CPU
// time, or the wall clock (how, then timedOutBy). The one mapping of
// how a child was stopped, for Starlark's child and for a command.
func (s supervised) limitError(how string) *protocol.Error {
	switch {
	case s.oom != "":
		return &protocol.Error{Type: protocol.ErrOOM, Message: s.oom}
	case s.cpu != "":
		return &protocol.Error{Type: protocol.ErrCPUTime, Message: s.cpu}
	case s.timedOut:
		return &protocol.Error{Type: protocol.ErrTimeout, Message: how + s.timedOutBy.Error()}
	}
	return nil
}

// child is a program the runner started and supervises.
type child struct {
	cmd         *exec.Cmd
	prs         []*os.File // the read ends of its output pipes
	drained     chan struct{}
	waited      chan error
	killsBefore int64
	countErr    error
}

// startChild starts cmd (with its stdin set) in its own process group,
// copying its stdout into stdout and, when stderr is not nil, its stderr
// into stderr, each through a pipe of its own: sinks that never fail a
// write (capture's), so a flood is drained, not blocked on; an
// interactive test's stdout (liveOut) waits while the other side does
// not read, which holds the test to the other side's pace. It reads the
// cgroup's OOM-kill counter first, so a kill during the run shows. cmd is
// the runner itself, re-executed as the Starlark child or the exec
// trampoline, each of which raises its own OOM score.
func startChild(cmd *exec.Cmd, cg cgroup, stdout, stderr io.Writer) (*child, error) {
	sinks := []io.Writer{stdout}
	if stderr != nil {
		sinks = append(sinks, stderr)
	}
	c := &child{cmd: cmd, drained: make(chan struct{}), waited: make(chan error, 1)}
	var pws []*os.File
	closeAll := func(fs []*os.File) {
		for _, f := range fs {
			f.Close()
		}
	}
	for range sinks {
		pr, pw, err := os.Pipe()
		if err != nil {
			closeAll(c.prs)
			closeAll(pws)
			return nil, fmt.Errorf("pipe: %w", err)
		}
		c.prs, pws = append(c.prs, pr), append(pws, pw)
	}
	cmd.Stdout = pws[0]
	if stderr != nil {
		cmd.Stderr = pws[1]
	}
	// Its own process group, so the deadline can kill everything it forked.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.killsBefore, c.countErr = cg.oomKills()
	// The child makes itself the OOM killer's first choice once it starts
	// (the Starlark child, and the exec trampoline before it becomes the
	// interpreter): the runner, non-dumpable, cannot write its own score
	// to pass it on, and keeps 0.
	err := cmd.Start()
	closeAll(pws)
	if err != nil {
		closeAll(c.prs)
		return nil, err
	}
	var copies sync.WaitGroup
	for i, sink := range sinks {
		copies.Add(1)
		go func() {
			defer copies.Done()
			// Keep reading past the cap: a child blocked on a full pipe
			// would otherwise look like a hang instead of a flood.
			_, _ = io.Copy(sink, c.prs[i])
			if e, ok := sink.(eofWriter); ok {
				e.EOF() // no process holds the pipe's write end any more
			}
		}()
	}
	go func() {
		copies.Wait()
		close(c.drained)
	}()
	go func() { c.waited <- cmd.Wait() }()
	return c, nil
}

// eofWriter is a sink told when its pipe reached its end: an
// interactive test's stdout (liveOut), whose end the other side's stdin
// then reaches too.
type eofWriter interface {
	io.Writer
	EOF()
}

// closePipes closes the read ends of the child's output pipes.
func (c *child) closePipes() {
	for _, pr := range c.prs {
		pr.Close()
	}
}

// supervise waits for the child, stops it at ctx's end or when the memory
// guard fires, kills and reaps whatever it left, and decides whether it ran
// out of memory: the guard's own reason, or the cgroup's OOM-kill counter
// having moved while it ran. The runner, not the child, survives to tell.
func (c *child) supervise(ctx context.Context, g *guard) supervised {
	defer c.closePipes()
	pid := c.cmd.Process.Pid
	var res supervised
	guardDone, watched := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watched)
		// The whole container, not only the group: the limit is the
		// program's, whatever it started.
		g.watch(guardDone, func() { killLeftovers(pid) })
	}()

	select {
	case res.waitErr = <-c.waited:
	case <-ctx.Done():
		res.timedOut = true
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		res.waitErr = <-c.waited
	}
	close(guardDone)
	<-watched // it reads the CPU counter, which usage then closes
	res.state = c.cmd.ProcessState
	killLeftovers(pid)
	select {
	case <-c.drained:
	case <-time.After(drainGrace):
		c.closePipes() // a process outside our reach still holds a pipe
		<-c.drained
	}
	reapOrphans()
	res.usage = g.cpu.usage(res.state)

	switch why, cpu := g.stopped(); {
	case why != "":
		res.oom, res.timedOut = why, false
	case cpu != "":
		res.cpu, res.timedOut = cpu, false
	case c.countErr == nil:
		if after, err := g.cg.oomKills(); err == nil && after > c.killsBefore {
			res.oom = fmt.Sprintf("memory exhausted: the kernel's OOM killer ended a process at the %d byte limit (cgroup oom_kill counter %d -> %d)",
				g.limit, c.killsBefore, after)
			res.timedOut = false
		}
	}
	return res
}

// abort kills a child that will not be given its work.
func (c *child) abort() {
	_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	<-c.waited
	c.closePipes()
}

// killLeftovers kills what the child left running: its process group,
// and, when the runner is PID 1 of a container, every other process in the
// container (a child may have left the group with setsid). Outside a
// container the second step is skipped: kill(-1) there would reach every
// process of the user.
func killLeftovers(pgid int) {
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	if os.Getpid() == 1 {
		_ = syscall.Kill(-1, syscall.SIGKILL)
	}
}

// reapOrphans collects exited descendants. As PID 1 the runner inherits
// every orphan in the container; unreaped zombies would hold PIDs.
func reapOrphans() {
	if os.Getpid() != 1 {
		return
	}
	deadline := time.Now().Add(drainGrace)
	for time.Now().Before(deadline) {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.ECHILD):
			return
		case err == nil && pid == 0:
			time.Sleep(5 * time.Millisecond)
		}
	}
}
