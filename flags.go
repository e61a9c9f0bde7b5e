package main

import (
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

// runFlags are shared by run and argv, so argv always prints exactly the
// argv run executes for the same flags.
func runFlags() []cli.Flag {
	return []cli.Flag{
		imageFlag("immutable image `ID` (sha256:<64 hex>) to run"),
		memoryFlag("memory `SIZE` (swap capped to the same), at least 64m"),
		durationFlag("timeout", limits.DefaultTimeout, "wall-clock limit `DURATION`, like 10s"),
		&cli.StringFlag{Name: "name", Usage: "container `NAME` (default: synapse-iso-<run id>)"},
		runtimeFlag(),
		contextFlag(),
		cliFlag(),
	}
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

func engine(c *cli.Context) isolation.Engine {
	return isolation.Engine{CLI: c.String("cli"), Context: c.String("context"), Env: environ(c)}
}

// reportFormatFlag is --format for the commands that print a report.
func reportFormatFlag() cli.Flag {
	return &cli.StringFlag{Name: "format", Value: "text", Usage: "output `FORMAT`: text or json"}
}

// choices are the values of every enumerated flag, per command: the one
// list that the flag's check and the shell completion scripts both read.
var choices = map[string]map[string][]string{
	"run":     {"format": {"json", "text"}},
	"eval":    {"format": {"json", "text"}},
	"argv":    {"format": {"shell", "json", "lines"}},
	"audit":   {"format": {"text", "json"}, "input": {"auto", "shell", "json", "lines"}},
	"doctor":  {"format": {"text", "json"}},
	"gc":      {"format": {"text", "json"}},
	"version": {"format": {"text", "json"}},
	"seccomp": {"format": {"json", "table"}},
}

// formatChoice returns --format if it is one of the command's choices,
// else a rejection that lists them.
func formatChoice(c *cli.Context) (string, error) { return choice(c, "format") }

// formatNoArgs is --format of a command that takes no arguments, which it
// refuses too.
func formatNoArgs(c *cli.Context) (string, error) {
	format, err := formatChoice(c)
	if err != nil {
		return "", err
	}
	return format, noArgs(c)
}

// choice returns the value of the command's enumerated flag, else a
// rejection that lists its choices.
func choice(c *cli.Context, flag string) (string, error) {
	allowed := choices[c.Command.Name][flag]
	v := c.String(flag)
	if slices.Contains(allowed, v) {
		return v, nil
	}
	n := len(allowed)
	return "", rejectf("--%s: must be %s or %s (got %q)", flag, strings.Join(allowed[:n-1], ", "), allowed[n-1], v)
}

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
		Limits:  limits.Config{Memory: memory(c), Timeout: duration(c, "timeout")},
		Name:    c.String("name"),
		Runtime: c.String("runtime"),
		Exec:    exec,
	}, nil
}
