package cli

import (
	"os"
	"slices"

	"github.com/urfave/cli/v2"
)

// metaArgs is the App.Metadata key of the raw command line: the flag
// parser drops the `--` terminator, and only the raw line tells whether
// the positional arguments came after one.
const metaArgs = "args"

// metaEnv is the App.Metadata key of the CLI's environment (run's env).
const metaEnv = "env"

// metaProgram is the App.Metadata key of the file the program was read
// from with --file, which a failure's line on stderr names.
const metaProgram = "program"

// appEnv returns the CLI's environment, which isolation/internal/environ
// reads (the last setting of a key wins).
func appEnv(c *cli.Context) []string {
	env, _ := c.App.Metadata[metaEnv].([]string)
	return env
}

// afterDashes reports whether the positional arguments of c were written
// after `--`. The flag parser stops at the first positional argument or at
// `--`, so the positionals are a suffix of the raw line; they came after
// `--` exactly when the token before that suffix is `--`.
func afterDashes(c *cli.Context) bool {
	raw, _ := c.App.Metadata[metaArgs].([]string)
	rest := c.Args().Slice()
	i := len(raw) - len(rest) - 1
	return i >= 0 && raw[i] == "--" && slices.Equal(raw[i+1:], rest)
}

// noArgs refuses positional arguments: a stray word must never change what
// a command does, and flags written after one would be silently dropped.
func noArgs(c *cli.Context) error {
	if c.Args().Present() {
		arg := c.Args().First()
		if flag := fileFlagFor(c, arg); flag != "" {
			return rejectf("unexpected argument %q (%s takes no arguments): did you mean %s?", arg, c.Command.Name, flag)
		}
		return rejectf("unexpected argument %q (%s takes no arguments)", arg, c.Command.Name)
	}
	return nil
}

// commandAfterDashes returns the interpreter command written after `--`,
// nil if there is none; any other positional argument is refused.
func commandAfterDashes(c *cli.Context) ([]string, error) {
	if !c.Args().Present() {
		return nil, nil
	}
	if afterDashes(c) {
		return c.Args().Slice(), nil
	}
	if flag := fileFlagFor(c, c.Args().First()); flag != "" {
		return nil, rejectf("unexpected argument %q: did you mean %s? (an interpreter command goes after --)", c.Args().First(), flag)
	}
	return nil, rejectf("unexpected argument %q: an interpreter command goes after --, as in: %s ... -- python3 -",
		c.Args().First(), c.Command.Name)
}

// isRegularFile reports whether path names a regular file (a positional
// argument meant as a program's file).
func isRegularFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}
