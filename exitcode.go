package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// Exit statuses that are not verdicts of a run.
const (
	exitNotCompliant = 1 // audit found a boundary missing or violated
	exitRejected     = 2 // bad flags or input
)

// silentError carries an exit status for an outcome the command has
// already reported on stdout (a failed audit, a run's JSON verdict).
type silentError struct{ code int }

func (e *silentError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// rejected marks bad flags or input.
type rejected struct{ err error }

func (e *rejected) Error() string { return e.err.Error() }
func (e *rejected) Unwrap() error { return e.err }

// usageError rewrites the flag package's messages in the spelling users
// type: "flag provided but not defined: -x" becomes "unknown flag --x".
func usageError(err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		msg = "unknown flag --" + strings.TrimPrefix(name, "-")
	} else if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		msg = "--" + strings.TrimPrefix(name, "-") + ": needs a value"
	}
	return &rejected{err: errors.New(msg)}
}

func rejectf(format string, a ...any) error { return &rejected{err: fmt.Errorf(format, a...)} }

// signalError is the cancellation cause when the CLI receives a signal.
type signalError struct{ sig os.Signal }

func (e *signalError) Error() string { return "received " + e.sig.String() }

// exitCode maps any error an action returns to the documented exit status.
func exitCode(err error) int {
	var (
		silent *silentError
		rej    *rejected
		flag   *limits.FlagError
		sig    *signalError
	)
	switch {
	case errors.As(err, &silent):
		return silent.code
	case errors.As(err, &sig):
		if s, ok := sig.sig.(syscall.Signal); ok {
			return 128 + int(s)
		}
		return 130
	case errors.As(err, &rej), errors.As(err, &flag):
		return exitRejected
	}
	return isolation.VerdictOf(err).ExitCode()
}
