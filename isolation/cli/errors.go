package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// silentError carries an exit status for an outcome the command has
// already reported on stdout (a failed audit, a run's JSON verdict).
type silentError struct{ code int }

func (e *silentError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// rejected marks bad flags or input.
type rejected struct{ err error }

func (e *rejected) Error() string { return message(e.err) }
func (e *rejected) Unwrap() error { return e.err }

// usageError rewrites the flag package's messages in the spelling users
// type: "flag provided but not defined: -x" becomes "unknown flag --x" or
// "unknown flag -x", as the user wrote it.
func usageError(c *cli.Context, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		msg = "unknown flag " + writtenFlag(c, strings.TrimPrefix(name, "-"))
	} else if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		msg = "--" + strings.TrimPrefix(name, "-") + ": needs a value"
	} else if rest, ok := strings.CutPrefix(msg, "invalid value "); ok {
		// `invalid value "X" for flag -NAME: WHY`, the flag package's
		// wording for a value its flag.Value refused.
		if value, after, ok := strings.Cut(rest, " for flag -"); ok {
			if name, why, ok := strings.Cut(after, ": "); ok {
				msg = "--" + strings.TrimPrefix(name, "-") + ": " + why
				if !strings.HasSuffix(why, "(got "+value+")") {
					msg += " (got " + value + ")"
				}
			}
		}
	}
	return &rejected{err: errors.New(msg)}
}

// message is err's text with a bad option named as the flag that set it:
// the library says "memory: ...", the CLI "--memory: ...".
func message(err error) string {
	inner := err
	if r, ok := inner.(*rejected); ok {
		inner = r.err
	}
	if r, ok := inner.(*isolation.Error); ok && r.Verdict == isolation.Rejected {
		inner = r.Err
	}
	if fe, ok := inner.(*limits.FieldError); ok {
		return fe.FlagError()
	}
	return err.Error()
}

// isRejected reports whether err is the library's refusal of bad options
// or input, made before any container started.
func isRejected(err error) bool {
	var ie *isolation.Error
	return errors.As(err, &ie) && ie.Verdict == isolation.Rejected
}

func rejectf(format string, a ...any) error { return &rejected{err: fmt.Errorf(format, a...)} }

// exitCode maps any error an action returns to the documented exit status.
func exitCode(err error) int {
	var (
		silent *silentError
		rej    *rejected
		flag   *limits.FieldError
		sig    *signalError
	)
	switch {
	case errors.As(err, &silent):
		return silent.code
	case errors.As(err, &sig):
		return sig.code()
	case errors.As(err, &rej), errors.As(err, &flag):
		return status(isolation.Rejected)
	}
	var ie *isolation.Error
	if errors.As(err, &ie) {
		return status(ie.Verdict)
	}
	return status(isolation.EngineFailure) // the tool could not do its job
}
