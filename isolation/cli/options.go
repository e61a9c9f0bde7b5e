package cli

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/environ"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// engineOptions select the client and the engine: --cli and one
// --context (batch's is a list of engines, its own).
type engineOptions struct {
	cli     string
	context string
}

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
func (o *engineOptions) engine(c *cli.Context) isolation.Engine {
	return isolation.Engine{CLI: o.cli, Context: o.context, Env: appEnv(c)}
}

// sandboxOptions are the flags of a run's options (isolation.Options):
// run and argv have all of them, batch all but --name and --context,
// doctor the image, memory, timeout, runtime and engine. Defaults and
// ranges are the library's: the flags hold its defaults, and Options.Argv
// and Run check the ranges.
type sandboxOptions struct {
	engineOptions
	image   string // with $SYNAPSE_IMAGE standing in (imageOrEnv)
	memory  limits.Bytes
	timeout limits.Duration
	cpuTime limits.Duration
	// testTimeout is each test's wall-clock limit; zero shares the time.
	testTimeout limits.Duration
	runtime     string
	name        string
}

// flags are the options that run, argv and batch share, declared once:
// the image, its limits, the runtime and the client.
func (o *sandboxOptions) flags() []cli.Flag {
	cpuTime := durationFlag(&o.cpuTime, "cpu-time", 0,
		"stop the program once it and all it started used `DURATION` of CPU time (verdict cpu_timeout)")
	cpuTime.DefaultText = "none"
	testTimeout := durationFlag(&o.testTimeout, "test-timeout", 0,
		"wall-clock limit `DURATION` of each test (--cpu-time applies to each test too)")
	testTimeout.DefaultText = "the time left once compiled, over the tests left: a quick test leaves its rest to those after it"
	return []cli.Flag{
		imageFlag(&o.image, "immutable image `ID` (sha256:<64 hex>) to run"),
		memoryFlag(&o.memory, "memory `SIZE` per container (swap capped to the same), at least 64m"),
		o.timeoutFlag("wall-clock limit `DURATION` per program, like 10s"),
		cpuTime,
		testTimeout,
		runtimeFlag(&o.runtime),
		o.cliFlag(),
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
		contextFlag(&o.context),
	)
}

// imageOrEnv is --image, or $SYNAPSE_IMAGE from the CLI's environment
// when the flag is not given (given empty, it is empty).
func (o *sandboxOptions) imageOrEnv(c *cli.Context) string {
	if c.IsSet("image") {
		return o.image
	}
	return environ.Get(appEnv(c), envImage)
}

// options are the flags as one isolation.Options, for a command that
// runs the image (run, argv, batch): without one, it names both ways to
// give it. The command after `--`, if any, is the interpreter for the
// runner's exec mode.
func (o *sandboxOptions) options(c *cli.Context) (isolation.Options, error) {
	opts, err := o.checked(c)
	if err == nil && opts.Image == "" {
		err = &limits.FieldError{Field: "image", Msg: "is required (or set " + envImage + "): an image ID like sha256:<64 hex digits> " +
			"(scripts/build-image.sh prints one)"}
	}
	return opts, err
}

// checked are the flags as one isolation.Options, their limits in the
// library's ranges (limits.Config.Resolve, the check every run makes),
// checked before anything is read or started.
func (o *sandboxOptions) checked(c *cli.Context) (isolation.Options, error) {
	exec, err := commandAfterDashes(c)
	if err != nil {
		return isolation.Options{}, err
	}
	lim := limits.Config{Memory: o.memory, Timeout: time.Duration(o.timeout), CPUTime: time.Duration(o.cpuTime), TestTimeout: time.Duration(o.testTimeout)}
	if _, err := lim.Resolve(); err != nil {
		return isolation.Options{}, asWritten(c, err)
	}
	return isolation.Options{
		Engine:  o.engine(c),
		Image:   o.imageOrEnv(c),
		Limits:  lim,
		Name:    o.name,
		Runtime: o.runtime,
		Exec:    exec,
	}, nil
}
