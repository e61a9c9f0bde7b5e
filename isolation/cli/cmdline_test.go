package cli

import (
	"errors"
	"flag"
	"testing"

	"github.com/urfave/cli/v2"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestCmdlineSpelled: an unknown flag is named as it was typed, one dash
// or two, even when the flag package names it with one.
func TestCmdlineSpelled(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line []string
		name string
		want string
	}{
		{[]string{"si", "run", "--bogus"}, "bogus", "--bogus"},
		{[]string{"si", "run", "-x"}, "x", "-x"},
		{[]string{"si", "argv", "-bogus=1"}, "bogus", "-bogus"},
		// The command's own name is no spelling of a flag.
		{[]string{"si", "argv", "-argv"}, "argv", "-argv"},
		// Words after -- are the interpreter's.
		{[]string{"si", "run", "--", "-y"}, "y", "--y"},
		{nil, "z", "--z"},
	} {
		assert.Check(t, is.Equal(cmdline(tc.line).spelled(tc.name), tc.want), "%q", tc.line)
	}
}

// TestCmdlineAfterDashes: positional arguments name an interpreter only
// when a `--` came before them.
func TestCmdlineAfterDashes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line, rest []string
		want       bool
	}{
		{[]string{"si", "run", "--code", "1", "--", "python3", "-"}, []string{"python3", "-"}, true},
		{[]string{"si", "run", "--code", "1", "python3", "-"}, []string{"python3", "-"}, false},
		// A later -- is an argument: the flags ended at python3.
		{[]string{"si", "run", "python3", "--", "x"}, []string{"python3", "--", "x"}, false},
		{[]string{"si", "run", "--", "--"}, []string{"--"}, true},
	} {
		assert.Check(t, is.Equal(cmdline(tc.line).afterDashes(tc.rest), tc.want), "%q", tc.line)
	}
}

// TestCmdlineUsageError: the flag package's messages, in the spelling
// users type; any other passes as it is.
func TestCmdlineUsageError(t *testing.T) {
	t.Parallel()
	line := cmdline{"si", "run", "-x"}
	for msg, want := range map[string]string{
		"flag provided but not defined: -x":                     "unknown flag -x",
		"flag needs an argument: -image":                        "--image: needs a value",
		`invalid value "yaml" for flag -format: must be a or b`: `--format: must be a or b (got "yaml")`,
		`invalid value "1x" for flag -memory: bad (got "1x")`:   `--memory: bad (got "1x")`,
		"bad flag syntax: ---x":                                 "bad flag syntax: ---x",
	} {
		err := line.usageError(errors.New(msg))
		var rej *rejected
		assert.Check(t, errors.As(err, &rej), msg)
		assert.Check(t, is.Equal(err.Error(), want), msg)
	}
}

// TestPackageFlagApply: the shared help flag declares fresh storage in
// each set it is applied to, so one set's --help is not another's.
func TestPackageFlagApply(t *testing.T) {
	t.Parallel()
	a, b := flag.NewFlagSet("a", flag.ContinueOnError), flag.NewFlagSet("b", flag.ContinueOnError)
	hf := cli.HelpFlag
	assert.NilError(t, hf.Apply(a))
	assert.NilError(t, hf.Apply(b))
	assert.NilError(t, a.Parse([]string{"-h"}))
	assert.Check(t, is.Equal(a.Lookup("help").Value.String(), "true"), "-h is --help")
	assert.Check(t, is.Equal(b.Lookup("help").Value.String(), "false"))
}
