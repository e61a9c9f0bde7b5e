// Command runner is the in-container entrypoint of the reference image. It
// reads one protocol v1 request from stdin, evaluates it (Starlark by
// default, an operator's interpreter with --exec, or a report of the
// container with --selfcheck), and writes exactly one JSON response to
// stdout. It never writes to stderr, so anything on the stderr of
// `docker run` is Docker's own. It exits 0 whenever it wrote a response,
// whatever the program did; 2 means it could not write one.
//
// Usage: runner [--timeout D] [--exec CMD ARGS... | --selfcheck]
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/synapse-lang/synapse-isolation/interp"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// hardStopGrace is how long after its deadline the runner waits for a
// program that ignores cancellation (a long builtin call) before it answers
// and exits anyway.
const hardStopGrace = time.Second

// responder writes the single response exactly once, whichever of the
// program or the hard-stop watchdog finishes first.
type responder struct {
	once sync.Once
	out  io.Writer
	ok   bool // set inside once; read after a Do call returns
}

// send writes resp unless a response was already attempted; it reports
// whether this call wrote it.
func (r *responder) send(resp protocol.Response) bool {
	sent := false
	r.once.Do(func() {
		b, err := json.Marshal(resp)
		if err == nil {
			_, err = r.out.Write(append(b, '\n'))
		}
		r.ok, sent = err == nil, err == nil
	})
	return sent
}

func (r *responder) sentOK() bool {
	r.once.Do(func() {}) // orders this read after any completed send
	return r.ok
}

func main() {
	silenceStderr()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout))
}

// silenceStderr points fd 2 at /dev/null, so not even a Go runtime crash
// report can mix runner text into Docker's own stderr.
func silenceStderr() {
	if f, err := os.OpenFile("/dev/null", os.O_WRONLY, 0); err == nil {
		_ = syscall.Dup2(int(f.Fd()), 2)
		_ = f.Close()
	}
}

type config struct {
	timeout   time.Duration
	exec      []string
	selfcheck bool
}

func parseArgs(args []string) (config, error) {
	c := config{timeout: limits.DefaultTimeout}
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--timeout":
			if i+1 >= len(args) {
				return c, fmt.Errorf("--timeout needs a value")
			}
			d, err := limits.ParseTimeout(args[i+1])
			if err != nil {
				return c, err
			}
			c.timeout = d
			i++
		case "--selfcheck":
			c.selfcheck = true
		case "--exec":
			if i+1 >= len(args) || args[i+1] == "" {
				return c, fmt.Errorf("--exec needs a command")
			}
			c.exec = args[i+1:]
			i = len(args)
		default:
			return c, fmt.Errorf("unknown argument %q", args[i])
		}
	}
	if c.selfcheck && c.exec != nil {
		return c, fmt.Errorf("--selfcheck and --exec conflict")
	}
	return c, nil
}

func failure(typ, msg string) protocol.Response {
	return protocol.Response{V: protocol.Version, Result: []byte("null"), Error: &protocol.Error{Type: typ, Message: msg}}
}

func run(args []string, stdin io.Reader, stdout io.Writer) (code int) {
	r := &responder{out: stdout}
	defer func() {
		if p := recover(); p != nil {
			r.send(failure(protocol.ErrInternal, fmt.Sprint("runner panic: ", p)))
		}
		code = 0
		if !r.sentOK() {
			code = 2
		}
	}()
	cfg, err := parseArgs(args)
	if err != nil {
		r.send(failure(protocol.ErrRequest, "runner: "+err.Error()))
		return
	}
	if cfg.selfcheck {
		sc := selfcheck()
		r.send(protocol.Response{V: protocol.Version, OK: true, Result: []byte("null"), Selfcheck: &sc})
		return
	}
	ctx, cancel := context.WithTimeoutCause(context.Background(), cfg.timeout,
		fmt.Errorf("runner deadline of %s", cfg.timeout))
	defer cancel()
	watchdog := time.AfterFunc(cfg.timeout+hardStopGrace, func() {
		if r.send(failure(protocol.ErrTimeout, fmt.Sprintf("runner deadline of %s: program did not stop", cfg.timeout))) {
			os.Exit(0)
		}
	})
	defer watchdog.Stop()

	req, err := readRequest(stdin)
	if err != nil {
		r.send(failure(protocol.ErrRequest, err.Error()))
		return
	}
	if cfg.exec != nil {
		r.send(execute(ctx, cfg.exec, req.Source))
		return
	}
	r.send(interp.Eval(ctx, req.Source, interp.Options{}))
	return
}

// readRequest reads at most one byte more than the limit, so an oversized
// request is detected without reading it all.
func readRequest(stdin io.Reader) (protocol.Request, error) {
	b, err := io.ReadAll(io.LimitReader(stdin, protocol.MaxRequestBytes+1))
	if err != nil {
		return protocol.Request{}, fmt.Errorf("request: reading stdin: %w", err)
	}
	return protocol.DecodeRequest(b)
}
