package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// signalContext is cancelled, with a *signalError cause, on the first
// SIGINT or SIGTERM. Later signals are swallowed while the run cleans up,
// so a second Ctrl-C cannot skip the container's removal; the cleanup is
// itself time-bounded.
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
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
