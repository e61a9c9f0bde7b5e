package cli

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// After a flag parse error urfave/cli gives no flag values, and the flag
// package's message spells every flag with one dash. What the user wrote
// is then read from the raw command line (metaArgs).

// flagWords are the raw words of c's command after its name, up to `--`.
func flagWords(c *cli.Context) []string {
	raw, _ := c.App.Metadata[metaArgs].([]string)
	if len(raw) == 0 {
		return nil
	}
	words := raw[1:]
	for i, w := range words {
		if !strings.HasPrefix(w, "-") { // the app's own flags take no values
			if c.Command != nil && w == c.Command.Name {
				words = words[i+1:]
			}
			break
		}
	}
	for i, w := range words {
		if w == "--" {
			return words[:i]
		}
	}
	return words
}

// writtenFormat is the value of the last --format (or -format, or
// --format=V) among c's flags, as the flag parser would have read it had
// it not stopped at an error; "" if there is none.
func writtenFormat(c *cli.Context) string {
	takesValue := map[string]bool{}
	if c.Command != nil {
		for _, f := range c.Command.Flags {
			if df, ok := f.(cli.DocGenerationFlag); ok && df.TakesValue() {
				for _, n := range f.Names() {
					takesValue[n] = true
				}
			}
		}
	}
	format := ""
	words := flagWords(c)
	for i := 0; i < len(words); i++ {
		w := words[i]
		if len(w) < 2 || w[0] != '-' {
			break // the first positional argument ends the flags
		}
		name, value, inline := strings.Cut(strings.TrimLeft(w, "-"), "=")
		switch {
		case inline:
			if name == "format" {
				format = value
			}
		case takesValue[name] && i+1 < len(words):
			if name == "format" {
				format = words[i+1]
			}
			i++
		}
	}
	return format
}

// writtenFlag is how the user spelled the flag name the flag package
// names with one dash: "-x" or "--x", the first of its words that does.
func writtenFlag(c *cli.Context, name string) string {
	for _, w := range flagWords(c) {
		if spelled, _, _ := strings.Cut(w, "="); strings.TrimLeft(spelled, "-") == name {
			return spelled
		}
	}
	return "--" + name
}
