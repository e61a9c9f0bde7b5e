package cli

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// envImage stands in for --image, so a Makefile or script sets it once.
const envImage = "SYNAPSE_IMAGE"

// imageFlag is --image; image reads it, or $SYNAPSE_IMAGE without it.
func imageFlag(usage string) cli.Flag {
	return &cli.StringFlag{Name: "image", Usage: usage + " [$" + envImage + "]"}
}

// image is --image, or $SYNAPSE_IMAGE from the CLI's environment.
func image(c *cli.Context) string {
	if c.IsSet("image") {
		return c.String("image")
	}
	return getenv(c, envImage)
}

// memoryFlag is --memory: a limits.Bytes, parsed once by the flag itself;
// its range is checked with everything else by isolation.NewPlan.
func memoryFlag(usage string) cli.Flag {
	v := limits.DefaultMemory
	return &cli.GenericFlag{Name: "memory", Value: &v, Usage: usage}
}

func memory(c *cli.Context) limits.Bytes { return *c.Generic("memory").(*limits.Bytes) }

// durationFlag is a limits.Duration flag, parsed once by the flag itself.
func durationFlag(name string, value time.Duration, usage string) cli.Flag {
	v := limits.Duration(value)
	return &cli.GenericFlag{Name: name, Value: &v, Usage: usage}
}

// duration reads a durationFlag; zero when the command has no such flag.
func duration(c *cli.Context, name string) time.Duration {
	if d, ok := c.Generic(name).(*limits.Duration); ok {
		return time.Duration(*d)
	}
	return 0
}

// optionFlags are the flags of a run's options that run, argv and batch
// share, declared once: the image, its limits, the runtime and the client.
func optionFlags() []cli.Flag {
	return []cli.Flag{
		imageFlag("immutable image `ID` (sha256:<64 hex>) to run"),
		memoryFlag("memory `SIZE` per container (swap capped to the same), at least 64m"),
		durationFlag("timeout", limits.DefaultTimeout, "wall-clock limit `DURATION` per program, like 10s"),
		&cli.GenericFlag{Name: "cpu-time", Value: new(limits.Duration), DefaultText: "none",
			Usage: "stop the program once it and all it started used `DURATION` of CPU time (verdict cpu_timeout)"},
		runtimeFlag(),
		cliFlag(),
	}
}

// runFlags are shared by run and argv, so argv always prints exactly the
// argv run executes for the same flags: the options, a container name and
// one engine.
func runFlags() []cli.Flag {
	return append(optionFlags(),
		&cli.StringFlag{Name: "name", Usage: "container `NAME` (default: synapse-iso-<run id>)"},
		contextFlag(),
	)
}

// engineFlags select the client and engine for commands that only talk to
// docker (doctor, gc).
func engineFlags() []cli.Flag { return []cli.Flag{contextFlag(), cliFlag()} }

// runtimeFlag is --runtime, for run, argv, batch and doctor.
func runtimeFlag() cli.Flag {
	return &cli.StringFlag{Name: "runtime", Usage: "OCI runtime `NAME`, like runsc"}
}

func contextFlag() cli.Flag {
	return &cli.StringFlag{Name: "context", Usage: "docker CLI context `NAME` (for a remote engine)"}
}

func cliFlag() cli.Flag {
	return &cli.StringFlag{Name: "cli", Value: "docker", Usage: "docker-compatible client `BINARY`", TakesFile: true}
}

// engine is the client and engine the flags name: one --context, where
// the command has a single one (batch's is a list of engines, its own).
func engine(c *cli.Context) isolation.Engine {
	e := isolation.Engine{CLI: c.String("cli"), Env: environ(c)}
	if name, single := c.Value("context").(string); single {
		e.Context = name
	}
	return e
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
func enumFlag(name, usage string, choices ...string) cli.Flag {
	return &cli.GenericFlag{Name: name, Value: &oneOf{choices: choices, value: choices[0]}, Usage: usage + ": " + orList(choices)}
}

// orList spells choices as "a, b or c", for the usage and the refusal.
func orList(choices []string) string {
	n := len(choices)
	return strings.Join(choices[:n-1], ", ") + " or " + choices[n-1]
}

// enum reads an enumFlag.
func enum(c *cli.Context, name string) string { return c.Generic(name).(*oneOf).value }

// formatFlag is --format of the commands that print a result: JSON by
// default, for scripts.
func formatFlag() cli.Flag { return enumFlag("format", "output `FORMAT`", "json", "text") }

// reportFormatFlag is --format for the commands that print a report: text
// by default, for people.
func reportFormatFlag() cli.Flag { return enumFlag("format", "output `FORMAT`", "text", "json") }

// format is --format.
func format(c *cli.Context) string { return enum(c, "format") }

// optionsFromFlags reads the flags a command has of run's options into
// one isolation.Options: run and argv have all of them, batch all but
// --name (its --context is a list), doctor the image, memory, runtime and
// engine. The command after `--`, if any, is the interpreter for the
// runner's exec mode. Defaults and ranges are the library's: the flags
// hold its defaults and isolation.Argv and Run check the ranges.
func optionsFromFlags(c *cli.Context) (isolation.Options, error) {
	exec, err := commandAfterDashes(c)
	if err != nil {
		return isolation.Options{}, err
	}
	return isolation.Options{
		Engine:  engine(c),
		Image:   image(c),
		Limits:  limits.Config{Memory: memory(c), Timeout: duration(c, "timeout"), CPUTime: duration(c, "cpu-time")},
		Name:    c.String("name"),
		Runtime: c.String("runtime"),
		Exec:    exec,
	}, nil
}
