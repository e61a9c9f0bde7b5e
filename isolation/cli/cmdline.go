package cli

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// This file is the one place the CLI makes up for what urfave/cli v2
// cannot do; everything else is v2 as designed.
//
// v2 parses each command's flags with Go's flag package, which names a
// flag it refuses with one dash whatever the user typed (--bogus and
// -bogus both read "flag provided but not defined: -bogus"), and which
// drops the `--` that ends the flags, so `run -- python3 -` and
// `run python3 -` leave the same positional arguments, yet only the first
// names an interpreter. Only the words as typed tell either: cmdline.
//
// v2's help and version flags are package variables (cli.HelpFlag,
// cli.VersionFlag) and *cli.BoolFlag's Apply writes to the flag itself,
// so apps running side by side in one process (the tests) would race on
// them: packageFlag is a bool flag whose Apply writes nothing shared.

// cmdline is the command line as typed, the program's name first.
type cmdline []string

// spelled is how the user wrote the flag the flag package calls -name:
// the first word, before `--`, that is that flag with one dash or two.
func (l cmdline) spelled(name string) string {
	for _, w := range l[min(1, len(l)):] {
		if w == "--" {
			break
		}
		if spelled, _, _ := strings.Cut(w, "="); strings.HasPrefix(spelled, "-") && strings.TrimLeft(spelled, "-") == name {
			return spelled
		}
	}
	return "--" + name
}

// afterDashes reports whether rest, a command's positional arguments,
// were written after `--`. The flag parser stops at the first positional
// argument or at `--`, so rest is a suffix of the line; it came after
// `--` exactly when the word before that suffix is `--`.
func (l cmdline) afterDashes(rest []string) bool {
	i := len(l) - len(rest) - 1
	return i >= 0 && l[i] == "--" && slices.Equal(l[i+1:], rest)
}

// usageError is a flag parse error as a rejection in the spelling users
// type: "unknown flag --x" (or -x, as written), "--x: needs a value",
// "--x: WHY (got "V")".
func (l cmdline) usageError(err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		msg = "unknown flag " + l.spelled(name)
	} else if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		msg = "--" + name + ": needs a value"
	} else if rest, ok := strings.CutPrefix(msg, "invalid value "); ok {
		// `invalid value "X" for flag -NAME: WHY`, for a value its
		// flag.Value refused.
		if value, after, ok := strings.Cut(rest, " for flag -"); ok {
			if name, why, ok := strings.Cut(after, ": "); ok {
				msg = fmt.Sprintf("--%s: %s", name, why)
				if !strings.HasSuffix(why, "(got "+value+")") {
					msg += " (got " + value + ")"
				}
			}
		}
	}
	return &rejected{err: errors.New(msg)}
}

// packageFlag is a bool flag fit to be shared by every app in the
// process: its names, usage and help text are BoolFlag's, and its Apply
// only declares fresh storage in the flag set being parsed.
type packageFlag struct{ *cli.BoolFlag }

// Apply declares the flag in set.
func (f packageFlag) Apply(set *flag.FlagSet) error {
	v := new(bool)
	for _, name := range f.Names() {
		set.BoolVar(v, name, false, f.Usage)
	}
	return nil
}

func init() {
	cli.HelpFlag = packageFlag{&cli.BoolFlag{Name: "help", Aliases: []string{"h"}, Usage: "show help", DisableDefaultText: true}}
	cli.VersionFlag = packageFlag{&cli.BoolFlag{Name: "version", Aliases: []string{"v"}, Usage: "print the version", DisableDefaultText: true}}
	// v2 prints "NAME version V"; the version command's first line,
	// which --version repeats, is "NAME V".
	cli.VersionPrinter = func(c *cli.Context) { fmt.Fprintf(c.App.Writer, "%s %s\n", c.App.Name, c.App.Version) }
}
