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
