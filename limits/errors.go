package limits

import "fmt"

// FieldError is a rejected configuration value. Field is the option's
// plain name (memory, timeout, image, name, context, runtime), or empty for
// a value not yet tied to an option (a size); the CLI shows it as the flag
// that set it.
type FieldError struct {
	Field string
	Value string
	Msg   string
}

// Error reads `field: message (got "value")`.
func (e *FieldError) Error() string { return e.format(e.Field) }

// FlagError reads like Error with the field spelled as a flag: `--memory: ...`.
func (e *FieldError) FlagError() string { return e.format("--" + e.Field) }

func (e *FieldError) format(name string) string {
	if name == "" || name == "--" {
		return fmt.Sprintf("%s (got %q)", e.Msg, e.Value)
	}
	if e.Value == "" {
		return fmt.Sprintf("%s: %s", name, e.Msg)
	}
	return fmt.Sprintf("%s: %s (got %q)", name, e.Msg, e.Value)
}
