package cli

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/dockerargs"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// The flag constructors here bind each flag to a destination, a field of
// the options struct of the command that has it: a command reads its
// options from that struct, never a flag back by its name.

// envImage stands in for --image, so a Makefile or script sets it once.
const envImage = "SYNAPSE_IMAGE"

// imageFlag is --image; sandboxOptions.image reads $SYNAPSE_IMAGE without it.
func imageFlag(dst *string, usage string) cli.Flag {
	return &cli.StringFlag{Name: "image", Usage: usage + " [$" + envImage + "]", Destination: dst}
}

// memoryFlag is --memory: a limits.Bytes, parsed once by the flag itself;
// its range is checked with everything else by isolation.NewPlan.
func memoryFlag(dst *limits.Bytes, usage string) cli.Flag {
	*dst = limits.DefaultMemory
	return &cli.GenericFlag{Name: "memory", Value: &written{Generic: dst}, Usage: usage}
}

// durationFlag is a duration flag: every duration the CLI takes is a
// limits.Duration, parsed by the flag itself and refused in its words.
func durationFlag(dst *limits.Duration, name string, value time.Duration, usage string) *cli.GenericFlag {
	*dst = limits.Duration(value)
	return &cli.GenericFlag{Name: name, Value: &written{Generic: dst}, Usage: usage}
}

// runtimeFlag is --runtime, for run, argv, batch and doctor.
func runtimeFlag(dst *string) cli.Flag {
	return &cli.StringFlag{Name: "runtime", Usage: "OCI runtime `NAME`, like runsc", Destination: dst}
}

func contextFlag(dst *string) cli.Flag {
	return &cli.StringFlag{Name: "context", Usage: "docker CLI context `NAME` (for a remote engine)", Destination: dst}
}

// cliFlag is --cli, the client binary; its default is the library's.
func cliFlag(dst *string, usage string, takesFile bool) cli.Flag {
	return &cli.StringFlag{Name: "cli", Value: dockerargs.DefaultCLI, Usage: usage, TakesFile: takesFile, Destination: dst}
}

// oneOf is the value of an enumerated flag: one of its choices, the first
// by default. Any other value is refused while the flags are parsed, in
// the one message that lists them; shell completion offers them.
type oneOf struct {
	choices []string
	value   string
}

func (o *oneOf) Set(s string) error {
	if !slices.Contains(o.choices, s) {
		return fmt.Errorf("must be %s", orList(o.choices))
	}
	o.value = s
	return nil
}

func (o *oneOf) String() string { return o.value }

// enumFlag is a flag whose value is one of choices, the first by default;
// usage names the value's placeholder, which the choices follow.
func enumFlag(dst *oneOf, name, usage string, choices ...string) cli.Flag {
	*dst = oneOf{choices: choices, value: choices[0]}
	return &cli.GenericFlag{Name: name, Value: dst, Usage: usage + ": " + orList(choices)}
}

// orList spells choices as "a, b or c", for the usage and the refusal.
func orList(choices []string) string {
	n := len(choices)
	return strings.Join(choices[:n-1], ", ") + " or " + choices[n-1]
}

// formatFlag is --format of the commands that print a result: JSON by
// default, for scripts. Its usage says where text puts an error, since
// a person reading a terminal would otherwise see it twice.
func formatFlag(dst *oneOf) cli.Flag {
	f := enumFlag(dst, "format", "output `FORMAT`", "json", "text").(*cli.GenericFlag)
	f.Usage += " (text: the program's stdout and value on stdout; its stderr, then an error once, on stderr)"
	return f
}

// reportFormatFlag is --format for the commands that print a report: text
// by default, for people.
func reportFormatFlag(dst *oneOf) cli.Flag {
	return enumFlag(dst, "format", "output `FORMAT`", "text", "json")
}
