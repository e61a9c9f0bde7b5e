package cli

import (
	"errors"

	"github.com/urfave/cli/v2"

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
// it, when that flag keeps its text and was given. It sets the value in
// err itself, so the one error is right wherever it is printed.
func asWritten(c *cli.Context, err error) error {
	var fe *limits.FieldError
	if !errors.As(err, &fe) || fe.Value == "" || !c.IsSet(fe.Field) {
		return err
	}
	if w, ok := c.Generic(fe.Field).(*written); ok && w.text != "" {
		fe.Value = w.text
	}
	return err
}
