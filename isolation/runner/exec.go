package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// execute runs an operator's interpreter with the source on its stdin,
// capturing stdout and stderr together under the output cap. It starts
// through the trampoline (a fresh exec of the runner), which raises its
// own OOM score while it may and then execs the interpreter.
func execute(ctx context.Context, argv []string, source string, g *guard) protocol.Response {
	resp := protocol.Response{V: protocol.Version, Result: []byte("null")}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		// Not the program's failure: the image has no such interpreter.
		return failure(protocol.ErrCommand, "start: "+err.Error())
	}
	status, statusW, err := os.Pipe()
	if err != nil {
		return failure(protocol.ErrInternal, "pipe: "+err.Error())
	}
	defer status.Close()
	cmd := exec.Command("/proc/self/exe", append([]string{execArg, path}, argv...)...)
	cmd.Stdin = strings.NewReader(source)
	cmd.ExtraFiles = []*os.File{statusW}
	g.cpu.begin() // the interpreter's start is the program's cost
	c, err := startChild(cmd, true, limits.MaxOutputBytes, g.cg)
	statusW.Close()
	if err != nil {
		return failure(protocol.ErrInternal, "starting the interpreter: "+err.Error())
	}
	// EOF once the trampoline's exec closed its end; an error message if
	// the exec failed.
	msg, _ := io.ReadAll(io.LimitReader(status, 4<<10))
	if len(msg) > 0 {
		c.abort()
		return failure(protocol.ErrCommand, "start: "+string(msg))
	}
	s := c.supervise(ctx, g)
	resp.Output, resp.OutputBytes, resp.OutputTruncated = s.out.Text(), s.out.Total(), s.out.Truncated()
	resp.Exit, resp.Usage = exitOf(s.state), s.usage
	switch {
	case s.oom != "":
		resp.Error = &protocol.Error{Type: protocol.ErrOOM, Message: s.oom}
	case s.cpu != "":
		resp.Error = &protocol.Error{Type: protocol.ErrCPUTime, Message: s.cpu}
	case s.timedOut:
		resp.Error = &protocol.Error{Type: protocol.ErrTimeout, Message: "stopped: " + context.Cause(ctx).Error()}
	case s.waitErr != nil:
		var ee *exec.ExitError
		msg := s.waitErr.Error()
		if !errors.As(s.waitErr, &ee) {
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
