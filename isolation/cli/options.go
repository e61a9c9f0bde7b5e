package cli

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/dockerargs"
	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/environ"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// Every flag is bound to a destination, a field of the options struct of
// the command that has it: a command reads its options from that struct,
// never a flag back by its name.

// envImage stands in for --image, so a Makefile or script sets it once.
const envImage = "SYNAPSE_IMAGE"

// engineOptions select the client and the engine: --cli and one
// --context (batch's is a list of engines, its own).
type engineOptions struct{ cli, context string }

// engineFlags are the flags of the commands that only talk to docker
// (doctor, gc).
func (o *engineOptions) engineFlags() []cli.Flag {
	return []cli.Flag{contextFlag(&o.context), o.cliFlag()}
}

func (o *engineOptions) cliFlag() cli.Flag {
	return cliFlag(&o.cli, "docker-compatible client `BINARY`", true)
}

// engine is the client and engine the flags name, with the CLI's
// environment.
func (o *engineOptions) engine(s *session) isolation.Engine {
	return isolation.Engine{CLI: o.cli, Context: o.context, Env: s.env}
}

// sandboxOptions are the flags of a run's options (isolation.Options):
// run and argv have all of them, batch all but --name and --context,
// doctor the image, memory, timeout, runtime and engine. Defaults and
// ranges are the library's: the flags hold its defaults, and Options.Argv
// and Run check the ranges.
type sandboxOptions struct {
	engineOptions
	image                         string // with $SYNAPSE_IMAGE standing in (checked)
	memory                        limits.Bytes
	timeout, cpuTime, testTimeout limits.Duration // testTimeout zero shares the time
	runtime, name                 string
}

// flags are the options that run, argv and batch share, declared once:
// the image, its limits, the runtime and the client.
func (o *sandboxOptions) flags() []cli.Flag {
	cpuTime := durationFlag(&o.cpuTime, "cpu-time", 0,
		"stop the program once it and all it started used `DURATION` of CPU time (verdict cpu_timeout)")
	cpuTime.DefaultText = "none"
	testTimeout := durationFlag(&o.testTimeout, "test-timeout", 0,
		"wall-clock limit `DURATION` of each test (--cpu-time applies to each test too), both times the image's time factor "+
			"(its io.synapse-isolation.time-factor label: Java, JavaScript and TypeScript 2, Python, Ruby and PHP 3), within --timeout")
	testTimeout.DefaultText = "the time left once compiled, over the tests left: a quick test leaves its rest to those after it"
	return []cli.Flag{
		imageFlag(&o.image, "immutable image `ID` (sha256:<64 hex>) to run"),
		memoryFlag(&o.memory, "memory `SIZE` per container (swap capped to the same), at least 64m"),
		o.timeoutFlag("wall-clock limit `DURATION` per program, like 10s"),
		cpuTime, testTimeout, runtimeFlag(&o.runtime), o.cliFlag(),
	}
}

// timeoutFlag is --timeout, run's and doctor's alike: one name, one
// default and one parse, its range checked by checked, as every run's is.
func (o *sandboxOptions) timeoutFlag(usage string) cli.Flag {
	return durationFlag(&o.timeout, "timeout", limits.DefaultTimeout, usage)
}

// runFlags are shared by run and argv, so argv always prints exactly the
// argv run executes for the same flags: the options, a container name and
// one engine.
func (o *sandboxOptions) runFlags() []cli.Flag {
	return append(o.flags(),
		&cli.StringFlag{Name: "name", Usage: "container `NAME` (default: synapse-iso-<run id>)", Destination: &o.name},
		contextFlag(&o.context))
}

// options are the flags as one isolation.Options, for a command that
// runs the image (run, argv, batch): without one, it names both ways to
// give it.
func (o *sandboxOptions) options(c *cli.Context, s *session) (isolation.Options, error) {
	opts, err := o.checked(c, s)
	if err == nil && opts.Image == "" {
		err = &limits.FieldError{Field: "image", Msg: "is required (or set " + envImage + "): an image ID like sha256:<64 hex digits> " +
			"(scripts/build-image.sh prints one)"}
	}
	return opts, err
}

// checked are the flags as one isolation.Options, their limits in the
// library's ranges (limits.Config.Resolve, the check every run makes),
// checked before anything is read or started. The image is --image, or
// $SYNAPSE_IMAGE from the CLI's environment without the flag; the command
// after `--`, if any, is the interpreter for the runner's exec mode.
func (o *sandboxOptions) checked(c *cli.Context, s *session) (isolation.Options, error) {
	exec, err := interpreter(c, s.line)
	if err != nil {
		return isolation.Options{}, err
	}
	image := o.image
	if !c.IsSet("image") {
		image = environ.Get(s.env, envImage)
	}
	lim := limits.Config{Memory: o.memory, Timeout: time.Duration(o.timeout), CPUTime: time.Duration(o.cpuTime), TestTimeout: time.Duration(o.testTimeout)}
	if _, err := lim.Resolve(); err != nil {
		return isolation.Options{}, asWritten(c, err)
	}
	return isolation.Options{Engine: o.engine(s), Image: image, Limits: lim, Name: o.name, Runtime: o.runtime, Exec: exec}, nil
}

// interpreter is the command written after `--`, nil if there is none;
// any other positional argument is refused.
func interpreter(c *cli.Context, line cmdline) ([]string, error) {
	args := c.Args()
	switch {
	case !args.Present():
		return nil, nil
	case line.afterDashes(args.Slice()):
		return args.Slice(), nil
	}
	if flag := fileFlagFor(c, args.First()); flag != "" {
		return nil, rejectf("unexpected argument %q: did you mean %s? (an interpreter command goes after --)", args.First(), flag)
	}
	return nil, rejectf("unexpected argument %q: an interpreter command goes after --, as in: %s ... -- python3 -", args.First(), c.Command.Name)
}

// noArgs refuses positional arguments: a stray word must never change what
// a command does, and flags written after one would be silently dropped.
func noArgs(c *cli.Context) error {
	if !c.Args().Present() {
		return nil
	}
	arg := c.Args().First()
	if flag := fileFlagFor(c, arg); flag != "" {
		return rejectf("unexpected argument %q (%s takes no arguments): did you mean %s?", arg, c.Command.Name, flag)
	}
	return rejectf("unexpected argument %q (%s takes no arguments)", arg, c.Command.Name)
}

// fileFlagFor is what a positional argument that names a regular file was
// likely meant as, for a command that reads a file by a flag (run and eval
// --file, batch --input): "--file prog.star"; "" otherwise.
func fileFlagFor(c *cli.Context, arg string) string {
	for _, f := range c.Command.Flags {
		if name := f.Names()[0]; name == "file" || name == "input" {
			if fi, err := os.Stat(arg); err == nil && fi.Mode().IsRegular() {
				return "--" + name + " " + dockerargs.Quote(arg)
			}
		}
	}
	return ""
}

// imageFlag is --image; checked reads $SYNAPSE_IMAGE without it.
func imageFlag(dst *string, usage string) cli.Flag {
	return &cli.StringFlag{Name: "image", Usage: usage + " [$" + envImage + "]", Destination: dst}
}

// memoryFlag is --memory: a limits.Bytes, parsed once by the flag itself;
// its range is checked with everything else by limits.Config.Resolve.
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

// written is a flag's value that keeps the text the user wrote, so that a
// value refused for its range is echoed as written (asWritten).
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

// asWritten is err with the value of the option it refuses as the user
// wrote it (--memory 1.5k: got "1.5k", not "1536"), when the flag keeps
// its text (written) and was given.
func asWritten(c *cli.Context, err error) error {
	fe := fieldError(err)
	if fe == nil || fe.Value == "" || !c.IsSet(fe.Field) {
		return err
	}
	w, ok := c.Generic(fe.Field).(*written)
	if !ok || w.text == "" {
		return err
	}
	fixed := *fe
	fixed.Value = w.text
	return &rejected{err: &fixed}
}

// oneOf is the value of an enumerated flag: one of its choices, the first
// by default. Any other value is refused while the flags are parsed, in
// the one message that lists them; shell completion offers them.
type oneOf struct {
	choices []string
	value   string
	// form and check, when set, admit a value of a form beyond the
	// choices ("float:ABS[:REL]"), which the refusal names with them.
	form  string
	check func(string) error
}

func (o *oneOf) Set(s string) error {
	if !slices.Contains(o.choices, s) && (o.check == nil || o.check(s) != nil) {
		if o.form != "" && strings.HasPrefix(s, strings.SplitAfter(o.form, ":")[0]) {
			return o.check(s) // of the form, but refused: its own reason
		}
		if o.form != "" {
			return fmt.Errorf("must be %s", orList(append(slices.Clip(o.choices), o.form)))
		}
		return fmt.Errorf("must be %s", orList(o.choices))
	}
	o.value = s
	return nil
}

func (o *oneOf) String() string { return o.value }

// enumFlag is a flag whose value is one of choices, the first by default;
// usage names the value's placeholder, which the choices follow.
func enumFlag(dst *oneOf, name, usage string, choices ...string) *cli.GenericFlag {
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
	f := enumFlag(dst, "format", "output `FORMAT`", "json", "text")
	f.Usage += " (text: the program's stdout and value on stdout; its stderr, then an error once, on stderr)"
	return f
}

// reportFormatFlag is --format for the commands that print a report: text
// by default, for people.
func reportFormatFlag(dst *oneOf) cli.Flag {
	return enumFlag(dst, "format", "output `FORMAT`", "text", "json")
}
