// Package cli is the synapse-isolation command line: it runs untrusted
// source code in a fresh, locked-down Docker container per request, prints
// the exact docker argv it uses, and audits captured docker argvs against
// its policy. The command in the module's root calls Main and nothing else.
//
// Inside this package the name cli is urfave/cli, the flag and command
// library every command is built with.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/urfave/cli/v2"

	"golang.org/x/sys/unix"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/removal"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// Main runs the command line with args (the program's name first), env as
// its environment and the three streams, and returns the exit status. The
// first SIGINT or SIGTERM cancels ctx's run and the run cleans up, then
// exits 128+signal (signalContext).
func Main(ctx context.Context, args, env []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if code, ok := removal.Reap(args, stdin); ok {
		return code // a run's reaper: this executable started again by the library
	}
	defer handlePipe()()
	ctx, stop := signalContext(ctx)
	defer stop()
	return run(ctx, args, env, stdin, stdout, stderr)
}

// session is what one run of the command line was given: its words, its
// environment and its streams. Every command's constructor captures it;
// env is a value, not the process's, so tests run side by side.
type session struct {
	line   cmdline  // the words as typed, the program's name first
	env    []string // read for $SYNAPSE_IMAGE and given to the docker client
	stdin  io.Reader
	stdout *checkedWriter
	stderr io.Writer
}

// run executes the CLI and returns its exit status. Actions return errors
// and never exit, so every cleanup runs before the process ends.
func run(ctx context.Context, args, env []string, stdin io.Reader, stdout, stderr io.Writer) int {
	s := &session{line: args, env: env, stdin: stdin, stdout: &checkedWriter{w: stdout}, stderr: stderr}
	err := newApp(s).RunContext(ctx, args)
	var sig *signalError
	if werr := s.stdout.failed(); werr != nil && !errors.As(err, &sig) {
		// Whatever the command meant to say, its reader did not get it;
		// a signal's status (128+n) still says who stopped it.
		err = writeFailed(werr)
	}
	if err == nil {
		return 0
	}
	var silent *silentError
	if !errors.As(err, &silent) {
		fmt.Fprintf(stderr, "synapse-isolation: %s\n", oneLine(message(err)))
	}
	return exitCode(err)
}

func newApp(s *session) *cli.App {
	// A flag that does not parse is a rejection (exit 2) with one line on
	// stderr, instead of urfave/cli's usage dump.
	onUsageError := func(_ *cli.Context, err error, _ bool) error { return s.line.usageError(err) }
	app := &cli.App{
		Name:    "synapse-isolation",
		Usage:   "run untrusted source code in a fresh, locked-down Docker container",
		Version: readBuildVersion().String(),
		// The app has a command named help (help.go), so urfave/cli adds
		// neither its own help command nor --help: the flag is given here.
		Flags:     []cli.Flag{cli.HelpFlag},
		Reader:    s.stdin,
		Writer:    s.stdout,
		ErrWriter: s.stderr,
		// Without this, urfave/cli calls os.Exit from inside Run for
		// errors that carry an exit code, skipping container cleanup.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError:   onUsageError,
		// Reached without a command: the help, or a word that is none.
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return unknownCommand(c, c.Args().First())
			}
			return cli.ShowAppHelp(c)
		},
		Commands: []*cli.Command{
			runCommand(s), batchCommand(s), argvCommand(s), auditCommand(s), doctorCommand(s), gcCommand(s), evalCommand(s),
			versionCommand(s), seccompCommand(s), completionCommand(), manCommand(), helpCommand(),
		},
	}
	for _, cmd := range app.Commands {
		// Else urfave/cli gives each command its package-wide help
		// command as a subcommand, a value it changes on every run.
		cmd.HideHelpCommand = true
		// Given now, not when the command runs: completion and the man
		// page list it for every command.
		cmd.Flags = append(cmd.Flags, cli.HelpFlag)
		if cmd.OnUsageError == nil {
			cmd.OnUsageError = onUsageError
		}
	}
	return app
}

// handledSignals are the signals that interrupt a run, in the order the
// exit status lists name them.
var handledSignals = []syscall.Signal{syscall.SIGINT, syscall.SIGTERM}

// signalContext is parent, cancelled with a *signalError cause on the first
// SIGINT or SIGTERM. Later signals are swallowed while the run cleans up,
// so a second Ctrl-C cannot skip the container's removal; the cleanup is
// itself time-bounded.
func signalContext(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 2)
	for _, sig := range handledSignals {
		signal.Notify(ch, sig)
	}
	go func() {
		for sig := range ch {
			cancel(&signalError{sig: sig})
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		cancel(nil)
	}
}

// handlePipe makes a write to a closed pipe fail with EPIPE instead of
// killing the process: unless SIGPIPE is handled, Go's runtime dies of it
// on a write to fd 1 or 2 (os/signal, "SIGPIPE"), skipping the cleanup and
// the message that the result could not be written (exit 125, via
// checkedWriter). Notify, not Ignore: an ignored signal stays ignored in
// the docker client and every other child, a handled one does not.
func handlePipe() (stop func()) {
	ch := make(chan os.Signal, 1) // never read: a signal with the buffer full is dropped
	signal.Notify(ch, syscall.SIGPIPE)
	return func() { signal.Stop(ch) }
}

// signalError is the cancellation cause when the CLI receives a signal.
type signalError struct{ sig os.Signal }

func (e *signalError) Error() string { return "received " + e.sig.String() }

// code is 128+signal, the shell's convention.
func (e *signalError) code() int {
	if s, ok := e.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return status(protocol.Interrupted)
}

// checkedWriter is every command's stdout. It keeps the first write that
// failed (a closed pipe, a full disk), so that run can exit as the tool's
// own failure (125) whichever command wrote and whether or not it looked
// at the error: a script must never read a status for output it did not
// get.
type checkedWriter struct {
	w   io.Writer
	mu  sync.Mutex // batch writes its results from several goroutines
	err error
}

func (cw *checkedWriter) Write(p []byte) (int, error) {
	n, err := cw.w.Write(p)
	if err != nil {
		cw.mu.Lock()
		if cw.err == nil {
			cw.err = err
		}
		cw.mu.Unlock()
	}
	return n, err
}

// failed is the first write's error, nil if every write succeeded.
func (cw *checkedWriter) failed() error {
	cw.mu.Lock()
	defer cw.mu.Unlock()
	return cw.err
}

// isTerminal reports whether r (or a writer) is a terminal: a tty answers
// TCGETS.
func isTerminal(r any) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
