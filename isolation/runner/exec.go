package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/capture"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// drainGrace bounds how long the runner waits for the output pipe to close
// after the command and its process group are dead.
const drainGrace = time.Second

// execute runs an operator's interpreter with the source on its stdin,
// capturing stdout and stderr together under the output cap.
func execute(ctx context.Context, argv []string, source string) protocol.Response {
	resp := protocol.Response{V: protocol.Version, Result: []byte("null")}
	pr, pw, err := os.Pipe()
	if err != nil {
		return failure(protocol.ErrInternal, "pipe: "+err.Error())
	}
	defer pr.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin = strings.NewReader(source)
	cmd.Stdout, cmd.Stderr = pw, pw
	// Its own process group, so the deadline can kill everything it forked.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		pw.Close()
		// Not the program's failure: the image has no such interpreter.
		return failure(protocol.ErrCommand, "start: "+err.Error())
	}
	pw.Close()

	out := capture.New(limits.MaxOutputBytes)
	drained := make(chan struct{})
	go func() {
		// Keep reading past the cap: a child blocked on a full pipe would
		// otherwise look like a hang instead of a flood.
		_, _ = io.Copy(out, pr)
		close(drained)
	}()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()

	var waitErr error
	timedOut := false
	select {
	case waitErr = <-waited:
	case <-ctx.Done():
		timedOut = true
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		waitErr = <-waited
	}
	killLeftovers(cmd.Process.Pid)
	select {
	case <-drained:
	case <-time.After(drainGrace):
		pr.Close() // a process outside our reach still holds the pipe
		<-drained
	}
	reapOrphans()

	resp.Output, resp.OutputBytes, resp.OutputTruncated = out.Text(), out.Total(), out.Truncated()
	resp.Exit = exitOf(cmd.ProcessState)
	switch {
	case timedOut:
		resp.Error = &protocol.Error{Type: protocol.ErrTimeout, Message: "stopped: " + context.Cause(ctx).Error()}
	case waitErr != nil:
		var ee *exec.ExitError
		msg := waitErr.Error()
		if !errors.As(waitErr, &ee) {
			msg = "wait: " + msg
		}
		resp.Error = &protocol.Error{Type: protocol.ErrExec, Message: msg}
	default:
		resp.OK = true
	}
	return resp
}

func exitOf(ps *os.ProcessState) *protocol.Exit {
	if ps == nil {
		return nil
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if ok && ws.Signaled() {
		return &protocol.Exit{Code: -1, Signal: ws.Signal().String()}
	}
	return &protocol.Exit{Code: ps.ExitCode()}
}

// killLeftovers kills what the command left running: its process group,
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
