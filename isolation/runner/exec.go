package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/capture"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// execute runs an operator's interpreter on the request: the source in a
// file its command line names (programArgv), in a fresh working directory
// with the request's files (prepare), the request's stdin on its stdin;
// its stdout and stderr are captured apart, each head and tail, sharing
// the output cap (capture.Keep). It starts through the trampoline (a
// fresh exec of the runner), which raises its own OOM score while it may
// and then execs the interpreter.
func execute(ctx context.Context, argv []string, req protocol.Request, g *guard) protocol.Response {
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
	w, err := prepare(req)
	defer w.close()
	if err != nil {
		statusW.Close()
		return failure(protocol.ErrInternal, "preparing the program: "+err.Error())
	}
	cmd := exec.Command("/proc/self/exe", append([]string{execArg, path}, programArgv(argv, w.source)...)...)
	// Env set, so os/exec adds no PWD for Dir: the program's environment
	// is the runner's, the engine's own keys alone.
	cmd.Dir, cmd.Stdin, cmd.Env = w.dir, w.stdin, os.Environ()
	cmd.ExtraFiles = []*os.File{statusW}
	stdout, stderr := capture.NewStream(limits.MaxOutputBytes), capture.NewStream(limits.MaxOutputBytes)
	g.cpu.begin() // the interpreter's start is the program's cost
	c, err := startChild(cmd, g.cg, stdout, stderr)
	statusW.Close()
	w.close()
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
	out, errOut := capture.Keep(limits.MaxOutputBytes, stdout, stderr)
	resp.Output, resp.OutputBytes, resp.OutputTruncated, resp.OutputReplaced = out.Text, out.Bytes, out.Truncated, out.Replaced
	resp.Stderr, resp.StderrBytes, resp.StderrTruncated, resp.StderrReplaced = errOut.Text, errOut.Bytes, errOut.Truncated, errOut.Replaced
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
		} else if last := lastLine(errOut.Text); last != "" {
			// What the interpreter said last, its exception for Python
			// ("ZeroDivisionError: division by zero"): the reason a
			// person reads first, as a Starlark error names its own.
			msg += ": " + last
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

// maxLastLine bounds the stderr line an exec error message quotes.
const maxLastLine = 200

// lastLine is the last line of text that is not blank, trimmed, cut to
// maxLastLine bytes at a character boundary ("…" marks a cut).
func lastLine(text string) string {
	text = strings.TrimRight(text, " \t\r\n")
	line := strings.TrimSpace(text[strings.LastIndexByte(text, '\n')+1:])
	if len(line) <= maxLastLine {
		return line
	}
	cut := maxLastLine
	for cut > 0 && !utf8.RuneStart(line[cut]) {
		cut--
	}
	return line[:cut] + "…"
}
