package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/container/interp"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/capture"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/runargs"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// childArg starts the runner as the Starlark child. It is not part of the
// runner's command line (runargs.Args): only the runner passes it, to
// itself.
const childArg = "--starlark-child"

// maxChildRequest bounds the request as the runner passes it to its
// Starlark child: json.Marshal spells a control character in six bytes.
const maxChildRequest = 6 * limits.MaxRequestBytes

// childResponseLimit leaves room in the 1 MiB response for what the parent
// changes and adds (its timings, a longer error message).
const childResponseLimit = limits.MaxResponseBytes - 16<<10

// starlarkChildProc is the Starlark child, started before the request is
// read (its start-up then overlaps the attestation and the wait for the
// request) and given the source once the request is decoded.
type starlarkChildProc struct {
	c     *child
	out   *capture.Buffer // its response, which must fit whole
	stdin *os.File
}

// startStarlarkChild starts the runner again as the Starlark child. The
// program runs in that child, so that when memory runs out it is the child
// that dies or is stopped, and the runner lives to say so with evidence.
//
// The child is also the /proc probe (procProbe): as it starts it writes
// its probe's line to a pipe of its own, fd 3.
func startStarlarkChild(timeout time.Duration, cg cgroup) (*starlarkChildProc, *procProbe, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	probeR, probeW, err := os.Pipe()
	if err != nil {
		pr.Close()
		pw.Close()
		return nil, nil, err
	}
	cmd := exec.Command("/proc/self/exe", append([]string{childArg}, runargs.Args{Timeout: timeout}.Args()...)...)
	cmd.Stdin = pr
	cmd.ExtraFiles = []*os.File{probeW}
	out := capture.New(limits.MaxResponseBytes)
	c, err := startChild(cmd, cg, out, nil)
	pr.Close()
	probeW.Close()
	if err != nil {
		pw.Close()
		probeR.Close()
		return nil, nil, err
	}
	return &starlarkChildProc{c: c, out: out, stdin: pw}, &procProbe{out: probeR}, nil
}

// abort ends a child that will get no program.
func (p *starlarkChildProc) abort() {
	p.stdin.Close()
	p.c.abort()
}

// eval hands the request, decoded and checked, to the child as JSON and
// turns how it ended, and what it used, into a response.
func (p *starlarkChildProc) eval(ctx context.Context, req protocol.Request, g *guard) protocol.Response {
	g.cpu.begin()
	b, err := json.Marshal(req)
	if err != nil {
		p.abort()
		return failure(protocol.ErrInternal, "encoding the request for the evaluator: "+err.Error())
	}
	go func() {
		// A child that dies early makes this write fail; supervise tells why.
		_, _ = p.stdin.Write(b)
		p.stdin.Close()
	}()
	s := p.c.supervise(ctx, g)
	resp := answer(ctx, s, p.out)
	resp.Usage = s.usage
	return resp
}

// answer is the response for how the child ended: its own, in out, or
// why not.
func answer(ctx context.Context, s supervised, out *capture.Buffer) protocol.Response {
	if s.timedOut {
		s.timedOutBy = context.Cause(ctx)
	}
	if e := s.limitError("stopped: "); e != nil {
		return failure(e.Type, e.Message)
	}
	switch {
	case s.waitErr != nil:
		return failure(protocol.ErrInternal, "the evaluator failed: "+s.waitErr.Error())
	case out.Truncated():
		return failure(protocol.ErrInternal, fmt.Sprintf("the evaluator's answer is larger than %d bytes", limits.MaxResponseBytes))
	}
	resp, err := protocol.DecodeResponse(out.Bytes())
	if err != nil {
		return failure(protocol.ErrInternal, "the evaluator's answer: "+err.Error())
	}
	return resp
}

// starlarkChild is the child's side: its deadline in args (the runner's
// --timeout, parsed as the runner's own), the request on stdin as JSON
// (its parent's, which decoded and checked it: json.Marshal's escapes can
// make it up to six times the frame's size, within maxChildRequest), one
// response on stdout, and a result too large for the response refused as
// the program's own error.
func starlarkChild(args []string, stdin io.Reader, stdout io.Writer) int {
	timeout := limits.DefaultTimeout
	if a, err := runargs.Parse(args); err == nil {
		timeout = a.Timeout
	}
	in, err := io.ReadAll(io.LimitReader(stdin, maxChildRequest+1))
	var req protocol.Request
	if err != nil || len(in) > maxChildRequest || json.Unmarshal(in, &req) != nil {
		return 2
	}
	ctx, cancel := context.WithTimeoutCause(context.Background(), timeout, fmt.Errorf("runner deadline of %s", timeout))
	defer cancel()
	resp := fromEval(interp.Eval(ctx, req.Source, interp.Options{Stdin: req.Stdin, Files: req.Files}))
	b, err := json.Marshal(resp)
	if err == nil && len(b) > childResponseLimit {
		resp = failure(protocol.ErrRuntime, fmt.Sprintf("result too large: its response would exceed %d bytes", limits.MaxResponseBytes))
		resp.Streams = protocol.Streams{}
		b, err = json.Marshal(resp)
	}
	if err != nil {
		return 2
	}
	if _, err := stdout.Write(append(b, '\n')); err != nil {
		return 2
	}
	return 0
}

// isChild reports whether this process is the Starlark child.
func isChild() bool { return len(os.Args) > 1 && os.Args[1] == childArg }
