package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/capture"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/runargs"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// judgeReserve is the time kept back from the tests for the response.
const judgeReserve = 50 * time.Millisecond

// judged reports whether a request runs as a judge's: it has tests, or
// its image declares a language (a source name, maybe a compile step).
func judged(cfg runargs.Args, req protocol.Request) bool {
	return cfg.Exec != nil && (cfg.Source != "" || req.Tests != nil)
}

// judgeRun runs a judge's request: the compile step once, if the
// language has one, then the program once per test (runTests), each a
// fresh process with its own limits, what becomes of its stdout the
// request's mode's (modeOf: compared with the test's expected output as
// it is written; sent to the host for a checker; relayed live to an
// interactor). A checker's or an interactor's own run (its role says so)
// runs the same way, the grader in place of the program. Without tests
// the program runs once, as exec mode runs an interpreter.
func judgeRun(ctx context.Context, cfg runargs.Args, in incoming, g *guard, pre *preloaded, r *responder) protocol.Response {
	pre.abortUnused() // a warm interpreter serves one program; these start fresh
	req := in.frame.Request
	m := modeOf(in.frame.Role(), req.Compare, in.data, r)
	b, end := build(ctx, cfg, req, g, cmp.Or(m.grader(), "the program"))
	defer b.close()
	if end != nil {
		return *end
	}
	resp, budget, w := b.resp, b.budget, b.w
	spec := startSpec{argv: b.argv, dir: w.dir, threads: cfg.Threads, program: b.prog}
	if req.Tests == nil {
		spec.stdin, spec.keep = w.stdin, budget
		r := step(ctx, g, spec, time.Until(deadlineOf(ctx)), cfg.CPUTime)
		if r.failed != nil {
			return *r.failed
		}
		respond(ctx, &resp, r.s, r.stdout, r.stderr, budget)
	} else {
		tests, failed := runTests(ctx, cfg, req.Tests, g, spec, budget, m)
		if failed != nil {
			return *failed
		}
		// Judged: each test's verdict is in it; the host takes the
		// request's from them.
		resp.Tests, resp.OK = tests, true
	}
	resp.Usage = g.cpu.usage(nil)
	if len(req.Collect) > 0 {
		b, _ := json.Marshal(resp)
		resp.Files = collect(w.dir, req.Collect, limits.MaxResponseBytes-len(b)-responseSlack)
	}
	return resp
}

// built is a source made ready to run: its working directory, the
// response begun (its compile step), the output budget the compiler's
// words left, and the command that runs it (prog: the compiled binary's
// sealed memfd, if any).
type built struct {
	w      *workDir
	resp   protocol.Response
	budget int
	argv   []string
	prog   *os.File
}

// close releases what build opened; b may be partly built.
func (b *built) close() {
	b.w.close()
	if b.prog != nil {
		b.prog.Close()
	}
}

// build prepares req's working directory, compiles the source once where
// the language compiles (its CPU time counted from here), and finds the
// command that runs it; what names the source in a failure. end, when
// set, is the response to give instead: the runner's failure, or the
// compile error. The caller closes b either way.
func build(ctx context.Context, cfg runargs.Args, req protocol.Request, g *guard, what string) (b *built, end *protocol.Response) {
	name := cfg.Source
	if name == "" {
		name = protocol.ProgramName
	}
	b = &built{resp: protocol.Response{V: protocol.Version, Result: []byte("null")}, budget: limits.MaxOutputBytes}
	var err error
	if b.w, err = prepare(req, name); err != nil {
		r := failure(protocol.ErrInternal, "preparing "+what+": "+err.Error())
		return b, &r
	}
	g.cpu.begin()
	if cfg.Compile != nil {
		st, failed := compile(ctx, cfg, b.w, g)
		if failed != nil {
			return b, failed
		}
		b.resp.Compile = st
		b.budget -= len(st.Output) + len(st.Stderr)
		if st.Error != nil {
			b.resp.Error = &protocol.Error{Type: protocol.ErrCompile, Message: "compilation failed: " + st.Error.Message}
			b.resp.Usage = g.cpu.usage(nil)
			return b, &b.resp
		}
	}
	if b.argv, b.prog, err = command(cfg, b.w); err != nil {
		r := failure(protocol.ErrCommand, "start: "+err.Error())
		return b, &r
	}
	return b, nil
}

// deadlineOf is ctx's deadline; the runner's always has one.
func deadlineOf(ctx context.Context) time.Time {
	d, _ := ctx.Deadline()
	return d.Add(-judgeReserve)
}

// compile runs the language's compile step in the working directory,
// under its own limits (limits.CompileTimeout within the request's time,
// limits.CompileCPUTime), its output kept within
// limits.MaxCompileOutput. A compiler the image lacks is the response to
// give (failed); a compiler that failed is a step with an error, whose
// message names the compiler's first error line.
func compile(ctx context.Context, cfg runargs.Args, w *workDir, g *guard) (*protocol.Step, *protocol.Response) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		r := failure(protocol.ErrInternal, "compile: "+err.Error())
		return nil, &r
	}
	defer null.Close()
	wall := min(limits.CompileTimeout, time.Until(deadlineOf(ctx)))
	spec := startSpec{argv: cfg.Compile, dir: w.dir, stdin: null, threads: cfg.Threads, keep: limits.MaxCompileOutput}
	r := step(ctx, g, spec, wall, limits.CompileCPUTime)
	if r.failed != nil {
		return nil, r.failed
	}
	st := r.step(limits.MaxCompileOutput)
	if st.Error != nil && st.Error.Type == protocol.ErrExec {
		// The compiler's own words say why; the first error line is the
		// one a person reads first (gcc and javac end with a caret or a
		// count, go with "too many errors").
		st.Error.Message = r.s.waitErr.Error()
		if line := firstError(st.Stderr+"\n"+st.Output, cfg.Source); line != "" {
			st.Error.Message += ": " + line
		}
	}
	return &st, nil
}

// firstError is the first line of text that names an error, cut to
// maxLastLine bytes; else the first that begins with a place in the
// source, its name (maybe after "./") and a colon, as go build's do
// ("./main.go:3:23: undefined: x", below a "# package" line); else its
// last line.
func firstError(text, source string) string {
	lines := strings.Split(text, "\n")
	for _, line := range lines {
		if strings.Contains(strings.ToLower(line), "error") {
			return cut(strings.TrimSpace(line), maxLastLine)
		}
	}
	for _, line := range lines {
		if source != "" && strings.HasPrefix(strings.TrimPrefix(line, "./"), source+":") {
			return cut(strings.TrimSpace(line), maxLastLine)
		}
	}
	return lastLine(text)
}

// command is the program's command line: a declared language's run
// command as it stands, whose first word "./NAME" is the file the compile
// step left, opened as a sealed memfd (prog) to exec; an interpreter's
// with the source's path in it (programArgv).
func command(cfg runargs.Args, w *workDir) (argv []string, prog *os.File, err error) {
	if cfg.Source == "" {
		return programArgv(cfg.Exec, w.source), nil, nil
	}
	argv = cfg.Exec
	name, ok := strings.CutPrefix(argv[0], "./")
	if !ok {
		return argv, nil, nil
	}
	// A plain name; "main", which the file rules keep for an
	// interpreter's source, is a compiled language's usual program.
	if err := protocol.CheckName(name); err != nil && name != protocol.ProgramName {
		return nil, nil, fmt.Errorf("the run command %q: %w", argv[0], err)
	}
	prog, err = sealedProgram(filepath.Join(w.dir, name))
	return argv, prog, err
}

// stepRun is one process of a judge's request as it ended: how
// (supervised) and what it wrote, or the response to give instead.
type stepRun struct {
	s              supervised
	stdout, stderr *capture.Stream
	wall           time.Duration
	failed         *protocol.Response
	memLimit       int64 // the container's memory limit, which caps the peak (peakOf)
}

// step starts spec under its own wall-clock limit and CPU-time limit
// (zero: none) and the container's memory, with a guard and a meter of its
// own, and supervises it to its end: everything it started is killed and
// reaped after, so each step starts alone.
func step(ctx context.Context, g *guard, spec startSpec, wall, cpu time.Duration) stepRun {
	// Timed from before its limit's clock starts, so a step stopped at
	// its limit reports at least that long.
	began := time.Now()
	sctx, cancel := context.WithTimeoutCause(ctx, max(wall, 0), fmt.Errorf("its wall-clock limit of %s", wall.Round(time.Millisecond)))
	defer cancel()
	sg := &guard{cg: g.cg, limit: g.limit, gvisor: g.gvisor, cpu: &meter{cg: g.cg, limit: cpu, gvisor: g.gvisor, memLimit: g.limit, own: g.cpu.ownOf()}}
	if os.Getpid() == 1 && !g.gvisor {
		startDecoy() // killLeftovers ended the last step's (see serve)
	}
	sg.cpu.begin()
	c, stdout, stderr, failed := startInterpreter(spec, g.cg)
	if failed != nil {
		sg.cpu.usage(nil) // closes its counter
		return stepRun{failed: failed}
	}
	s := c.supervise(sctx, sg)
	if s.timedOut {
		s.timedOutBy = context.Cause(sctx)
	}
	return stepRun{s: s, stdout: stdout, stderr: stderr, wall: time.Since(began), memLimit: g.limit}
}

// step is r as a response's step, its output kept within keep.
func (r stepRun) step(keep int) protocol.Step {
	out, errOut := capture.Keep(keep, r.stdout, r.stderr)
	st := protocol.Step{Exit: exitOf(r.s.state), WallMicros: r.wall.Microseconds(), Usage: r.s.usage}
	setStep(&st, out, errOut)
	if st.Usage != nil {
		// The process tree's own peak, as wait4 reports it: the
		// cgroup's is the container's whole life, every step before.
		st.Usage.MemoryPeakBytes = peakOf(r.s.state, r.memLimit)
	}
	st.Error = stepError(r.s, errOut.Text, "stopped at ")
	return st
}

// setStep puts kept output and stderr into st.
func setStep(st *protocol.Step, out, errOut capture.Kept) {
	st.Streams = protocol.StreamsOf(out, errOut)
}

// stepError is why a step failed, nil if it exited 0 (execute's rule);
// how begins the message of a wall-clock stop, before its cause.
func stepError(s supervised, stderr, how string) *protocol.Error {
	if e := s.limitError(how); e != nil {
		return e
	}
	switch {
	case s.waitErr != nil:
		var ee *exec.ExitError
		msg := s.waitErr.Error()
		if !errors.As(s.waitErr, &ee) {
			msg = "wait: " + msg
		} else if last := lastLine(stderr); last != "" {
			msg += ": " + last
		}
		return &protocol.Error{Type: protocol.ErrExec, Message: msg}
	}
	return nil
}
