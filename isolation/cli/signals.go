package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/synapse-lang/synapse-isolation/isolation"
)

// signalContext is parent, cancelled with a *signalError cause on the first
// SIGINT or SIGTERM. Later signals are swallowed while the run cleans up,
// so a second Ctrl-C cannot skip the container's removal; the cleanup is
// itself time-bounded.
// handledSignals are the signals that interrupt a run, in the order the
// exit status lists name them.
var handledSignals = []syscall.Signal{syscall.SIGINT, syscall.SIGTERM}

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
	return status(isolation.Interrupted)
}
