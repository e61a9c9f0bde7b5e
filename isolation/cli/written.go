package cli

import (
	"errors"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// written is a flag's value that keeps the text the user wrote, so that a
// value refused for its range is echoed as written (--memory 1.5k: got
// "1.5k"), not as the library renders the number it parsed ("1536").
type written struct {
	cli.Generic
	text string
}

func (w *written) Set(s string) error {
	if err := w.Generic.Set(s); err != nil {
		return err
	}
	w.text = s
	return nil
}

// asWritten is err with the value of the flag it names as the user wrote
// it, when that flag keeps its text and was given: a new error, in the
// shapes the CLI's messages read (message); err itself is not changed.
func asWritten(c *cli.Context, err error) error {
	var fe *limits.FieldError
	if !errors.As(err, &fe) || fe.Value == "" || !c.IsSet(fe.Field) {
		return err
	}
	w, ok := c.Generic(fe.Field).(*written)
	if !ok || w.text == "" {
		return err
	}
	fixed := *fe
	fixed.Value = w.text
	return withField(err, &fixed)
}

// withField is err with its field error replaced by fe: the field error
// itself, or under a rejection of the CLI's or the library's.
func withField(err error, fe *limits.FieldError) error {
	switch e := err.(type) {
	case *limits.FieldError:
		return fe
	case *rejected:
		return &rejected{err: withField(e.err, fe)}
	case *isolation.Error:
		return &isolation.Error{Verdict: e.Verdict, Err: withField(e.Err, fe)}
	}
	return err
}
