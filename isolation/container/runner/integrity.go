package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol/hello"
)

// The program shares the runner's uid and PID namespace, so the runner
// protects itself from the program: it is non-dumpable (its /proc files
// belong to root), deaf to signals, and never in need of a new thread once
// the program runs. See DESIGN §10.

// protect makes this process non-dumpable and deaf to every signal it does
// not need. Non-dumpable, /proc/<pid>/mem, fd/*, environ, maps and
// oom_score_adj belong to root, and a same-uid process without
// capabilities cannot open them (the kernel's ptrace access check). It is
// the first thing the runner does; an exec resets it, so every re-executed
// child of the runner calls it again.
func protect() {
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	deafen()
}

// deafen ignores every signal but those the Go runtime itself relies on
// (SIGURG preempts goroutines, SIGPROF profiles, and SIGCHLD must stay
// default: ignored, children are reaped by the kernel and Wait fails).
// As PID 1 of its namespace the kernel then drops what the program sends,
// SIGKILL and SIGSTOP included; a fault signal the runtime must keep
// handling (SIGSEGV, SIGBUS, ...) is ignored by the runtime when a process
// sent it. The seccomp filter refuses the sends that forge a kernel
// siginfo (rt_sigqueueinfo, pidfd_send_signal with one).
func deafen() {
	for s := syscall.Signal(1); s <= 64; s++ {
		switch s {
		case syscall.SIGKILL, syscall.SIGSTOP, syscall.SIGCHLD, syscall.SIGURG, syscall.SIGPROF:
			continue
		}
		signal.Ignore(s)
	}
}

// spareThreads is how many idle OS threads the runner keeps before the
// program starts. Once the program runs, the runner's goroutines block in
// at most a few system calls at a time (the child's wait, a cgroup read,
// the response write), and each such call needs a thread of its own; a
// thread it had to create then would fail when the program holds every PID
// of the cgroup, and the Go runtime dies of a failed thread creation.
const spareThreads = 8

// reserveThreads makes the Go runtime start n threads and park them idle:
// it keeps idle threads for reuse and never ends them, so the runtime
// needs no new one while the program runs.
func reserveThreads(n int) {
	var held, release sync.WaitGroup
	held.Add(n)
	release.Add(1)
	for range n {
		go func() {
			// Locked, each goroutine holds a thread of its own until all
			// are held; unlocked, the thread returns to the idle list.
			runtime.LockOSThread()
			held.Done()
			release.Wait()
			runtime.UnlockOSThread()
		}()
	}
	held.Wait()
	release.Done()
}

// procFlags opens each of the runner's own /proc files the program must
// not open (hello.ProcProbeFiles) as an attacker would. The descriptors
// are probed through fd/0, the runner's stdin: runc closes the whole
// directory of a non-dumpable process, gVisor lets it be listed but closes
// each entry. Not fd/1: where it opens (Debian's 2022 gVisor) it reaches
// the runner's stdout, and the probe's open and close of it broke the
// runner's writes there (4 runs of 4); stdin carries nothing yet, as the
// host writes only after the hello.
var procFlags = map[string]int{
	"mem": unix.O_RDWR, "fd/0": unix.O_RDONLY, "environ": unix.O_RDONLY, "oom_score_adj": unix.O_WRONLY,
}

// probeArg starts the runner as the /proc probe: runner --proc-probe PID.
// Only the runner passes it, to itself.
const probeArg = "--proc-probe"

// isProbe reports whether this process is the /proc probe.
func isProbe() bool { return len(os.Args) == 3 && os.Args[1] == probeArg }

// procProbe is a child that opens this process's own /proc files as the
// program would (same uid, no capabilities) and reports the errno of each
// open on a pipe. In Starlark mode the Starlark child does it as it
// starts; otherwise a throwaway exec of the runner does (probeMain), ended
// after the hello. (Under gVisor a second child of the runner, started
// before the hello, made the runner's writes to stdout fail in about 3
// runs of 4, whether a raw fork or an exec, early or late; the Starlark
// child alone never did.)
type procProbe struct {
	cmd   *exec.Cmd // the throwaway child, nil when the Starlark child probes
	stdin io.Closer
	out   io.ReadCloser
}

// startProcProbe starts the probe; nil if it could not start (the hello
// then reports every file unprobed, which fails the judgement).
func startProcProbe() *procProbe {
	cmd := exec.Command("/proc/self/exe", probeArg, strconv.Itoa(os.Getpid()))
	stdin, err1 := cmd.StdinPipe()
	stdout, err2 := cmd.StdoutPipe()
	if err1 != nil || err2 != nil || cmd.Start() != nil {
		return nil
	}
	return &procProbe{cmd: cmd, stdin: stdin, out: stdout}
}

// probeFD is where the Starlark child writes its probe's line.
const probeFD = 3

// result returns the errno of each open, 0 where it opened, -1 where it
// could not be probed.
func (p *procProbe) result() map[string]int {
	files := hello.ProcProbeFiles
	out := make(map[string]int, len(files))
	for _, name := range files {
		out[name] = -1 // not probed: fails the judgement
	}
	if p == nil {
		return out
	}
	line, err := bufio.NewReader(io.LimitReader(p.out, 256)).ReadString('\n')
	fields := strings.Fields(line)
	if err != nil || len(fields) != len(files) {
		return out
	}
	for i, name := range files {
		if n, err := parseInt([]byte(fields[i])); err == nil {
			out[name] = int(n)
		}
	}
	return out
}

// end ends the probe: the throwaway child is ended and reaped.
func (p *procProbe) end() {
	switch {
	case p == nil:
	case p.cmd == nil:
		p.out.Close()
	case p.cmd.ProcessState == nil:
		p.stdin.Close()
		_ = p.cmd.Wait()
	}
}

// probeMain is the throwaway probe's side: it writes the line and waits
// for the runner to close its stdin.
func probeMain(pid string) int {
	if writeProbe(os.Stdout, pid) != nil {
		return 2
	}
	// Alive until the runner has written its hello and closes stdin.
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// writeProbe opens each file of pid as the program would and writes the
// errnos on one line, 0 for an open that succeeded.
func writeProbe(w io.Writer, pid string) error {
	var errnos []string
	for _, name := range hello.ProcProbeFiles {
		flags, ok := procFlags[name]
		if !ok {
			errnos = append(errnos, "-1") // a file this runner cannot probe: fails the judgement
			continue
		}
		fd, err := unix.Open("/proc/"+pid+"/"+name, flags|unix.O_CLOEXEC, 0)
		e := 0
		if err != nil {
			e = int(err.(syscall.Errno))
		} else {
			unix.Close(fd)
		}
		errnos = append(errnos, strconv.Itoa(e))
	}
	_, err := io.WriteString(w, strings.Join(errnos, " ")+"\n")
	return err
}
