package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"syscall"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/capture"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// execute runs an operator's interpreter on the request: the source in a
// file its command line names (programArgv), in a fresh working directory
// with the request's files (prepare), the request's stdin on its stdin;
// its stdout and stderr are captured apart, each head and tail, sharing
// the output cap (capture.Keep). It starts through the trampoline (a
// fresh exec of the runner), which raises its own OOM score while it may
// and then execs the interpreter.
func execute(ctx context.Context, argv []string, threads int, req protocol.Request, g *guard, pre *preloaded) protocol.Response {
	resp := protocol.Response{V: protocol.Version, Result: []byte("null")}
	w, err := prepare(req, protocol.ProgramName)
	defer w.close()
	if err != nil {
		pre.abortUnused()
		return failure(protocol.ErrInternal, "preparing the program: "+err.Error())
	}
	var c *child
	var stdout, stderr *capture.Stream
	if pre != nil {
		// Warm: the interpreter waits with the image's modules imported;
		// its program is handed over now, and costs from here, as a
		// cold interpreter's start does.
		g.cpu.begin()
		program := programArgv(argv, w.source)[slices.Index(argv, "-"):]
		if pre.hand(program, w.stdin) == nil {
			c, stdout, stderr = pre.child, pre.stdout, pre.stderr
		} else {
			pre.abort() // gone: the program starts cold below
		}
	}
	if c == nil {
		var failed *protocol.Response
		if c, stdout, stderr, failed = startCold(argv, threads, w, g); failed != nil {
			return *failed
		}
	}
	w.close()
	s := c.supervise(ctx, g)
	respond(ctx, &resp, s, stdout, stderr, limits.MaxOutputBytes)
	if len(req.Collect) > 0 {
		// What is left of the response's bound once the rest is known;
		// the runner's own times, added when it is sent, and the JSON
		// around the files are within the slack.
		b, _ := json.Marshal(resp)
		resp.Files = collect(w.dir, req.Collect, limits.MaxResponseBytes-len(b)-responseSlack)
	}
	return resp
}

// respond puts how the program ended (s) and what it wrote into resp,
// its output and stderr kept within bound.
func respond(ctx context.Context, resp *protocol.Response, s supervised, stdout, stderr *capture.Stream, bound int) {
	out, errOut := capture.Keep(bound, stdout, stderr)
	resp.Streams = protocol.StreamsOf(out, errOut)
	resp.Exit, resp.Usage = exitOf(s.state), s.usage
	if s.timedOut && s.timedOutBy == nil {
		s.timedOutBy = context.Cause(ctx)
	}
	resp.Error = stepError(s, errOut.Text, "stopped: ")
	resp.OK = resp.Error == nil
}

// responseSlack is room kept in the response for what is written after
// the files are collected.
const responseSlack = 1 << 10

// startCold starts argv's interpreter on the program in w through the
// trampoline; a failure is the response to give.
func startCold(argv []string, threads int, w *workDir, g *guard) (*child, *capture.Stream, *capture.Stream, *protocol.Response) {
	g.cpu.begin() // the interpreter's start is the program's cost
	return startInterpreter(startSpec{argv: programArgv(argv, w.source), dir: w.dir, stdin: w.stdin, threads: threads}, g.cg)
}

// startSpec is what startInterpreter starts.
type startSpec struct {
	argv    []string // its first word looked up on PATH, unless program is set
	dir     string
	stdin   *os.File
	threads int        // limits.ThreadVars' value; zero sets none
	extra   []*os.File // descriptors from fd 4 on (statusFD is 3)
	program *os.File   // a compiled program (sealedProgram), execed as argv; it becomes programFD
	keep    int        // what each stream keeps of its head and of its tail; zero: limits.MaxOutputBytes
	tee     io.Writer  // gets the stdout too (a test's matcher); nil: none
	// letStdin: stdin is a pipe's read end, closed here once the child
	// has it, so that a write to the pipe fails once the child's
	// processes are gone instead of waiting on them (liveIn).
	letStdin bool
}

// startInterpreter starts s's command through the trampoline, which
// raises its OOM score and execs it: in s.dir, on s.stdin, with the thread
// bounds and the extra descriptors, its stdout and stderr captured apart.
// A failure is the response to give: a command the image lacks or cannot
// exec is ErrCommand.
func startInterpreter(s startSpec, cg cgroup) (*child, *capture.Stream, *capture.Stream, *protocol.Response) {
	fail := func(typ, msg string) (*child, *capture.Stream, *capture.Stream, *protocol.Response) {
		r := failure(typ, msg)
		return nil, nil, nil, &r
	}
	path, extra := programPath, s.extra
	if s.program != nil {
		extra = []*os.File{s.program}
	} else {
		var err error
		if path, err = exec.LookPath(s.argv[0]); err != nil {
			// Not the program's failure: the image has no such interpreter.
			return fail(protocol.ErrCommand, "start: "+err.Error())
		}
	}
	status, statusW, err := os.Pipe()
	if err != nil {
		return fail(protocol.ErrInternal, "pipe: "+err.Error())
	}
	defer status.Close()
	cmd := exec.Command("/proc/self/exe", append([]string{execArg, path}, s.argv...)...)
	// Env set, so os/exec adds no PWD for Dir: the program's environment
	// is the runner's, the engine's own keys alone, and the thread bounds.
	cmd.Dir, cmd.Stdin, cmd.Env = s.dir, s.stdin, append(os.Environ(), threadEnv(s.threads)...)
	cmd.ExtraFiles = append([]*os.File{statusW}, extra...)
	keep := s.keep
	if keep == 0 {
		keep = limits.MaxOutputBytes
	}
	stdout, stderr := capture.NewStream(keep), capture.NewStream(keep)
	var out io.Writer = stdout
	if s.tee != nil {
		out = io.MultiWriter(stdout, s.tee) // neither fails a write
		if e, ok := s.tee.(eofWriter); ok {
			out = teeEOF{Writer: out, eof: e.EOF}
		}
	}
	c, err := startChild(cmd, cg, out, stderr)
	statusW.Close()
	if s.letStdin {
		s.stdin.Close()
	}
	if err != nil {
		return fail(protocol.ErrInternal, "starting the interpreter: "+err.Error())
	}
	// EOF once the trampoline's exec closed its end; an error message if
	// the exec failed.
	if msg, _ := io.ReadAll(io.LimitReader(status, 4<<10)); len(msg) > 0 {
		c.abort()
		return fail(protocol.ErrCommand, "start: "+string(msg))
	}
	return c, stdout, stderr, nil
}

// teeEOF is the stdout's sink with its tee's EOF.
type teeEOF struct {
	io.Writer
	eof func()
}

func (t teeEOF) EOF() { t.eof() }

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

// threadEnv holds every numeric library's thread pool to n threads
// (limits.ThreadVars), set for the interpreter whatever the engine gave
// the runner; none when n is zero.
func threadEnv(n int) []string {
	if n <= 0 {
		return nil
	}
	env := make([]string, 0, len(limits.ThreadVars))
	for _, v := range limits.ThreadVars {
		env = append(env, v+"="+strconv.Itoa(n))
	}
	return env
}
