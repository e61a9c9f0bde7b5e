package main

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// runFlags are shared by run and argv, so argv always prints exactly the
// argv run executes for the same flags.
func runFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "image", Usage: "immutable image `ID` (sha256:<64 hex>) to run", Required: false},
		&cli.StringFlag{Name: "memory", Value: "512m", Usage: "memory `SIZE` (swap capped to the same), at least 64m"},
		&cli.StringFlag{Name: "timeout", Value: limits.DefaultTimeout.String(), Usage: "wall-clock limit `DURATION`, like 10s"},
		&cli.StringFlag{Name: "name", Usage: "container `NAME` (default: synapse-iso-<random>)"},
		&cli.StringFlag{Name: "context", Usage: "docker CLI context `NAME` (for a remote engine)"},
		&cli.StringFlag{Name: "runtime", Usage: "OCI runtime `NAME`, like runsc"},
		cliFlag(),
	}
}

// engineFlags select the client and engine for commands that only talk to
// docker (doctor, gc).
func engineFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "context", Usage: "docker CLI context `NAME` (for a remote engine)"},
		cliFlag(),
	}
}

func cliFlag() cli.Flag {
	return &cli.StringFlag{Name: "cli", Value: "docker", Usage: "docker-compatible client `BINARY`"}
}

// reportFormatFlag is --format for the commands that print a report.
func reportFormatFlag() cli.Flag {
	return &cli.StringFlag{Name: "format", Value: "text", Usage: "output `FORMAT`: text or json"}
}

// formatChoice returns --format if it is one of allowed, else a rejection
// that lists them.
func formatChoice(c *cli.Context, allowed ...string) (string, error) {
	f := c.String("format")
	if slices.Contains(allowed, f) {
		return f, nil
	}
	n := len(allowed)
	return "", rejectf("--format: must be %s or %s (got %q)", strings.Join(allowed[:n-1], ", "), allowed[n-1], f)
}

// optionsFromFlags parses the shared flags into run options; the arguments
// after `--`, if any, are the interpreter command for the runner's exec mode.
func optionsFromFlags(c *cli.Context) (isolation.Options, error) {
	// The image and everything else are validated once, by isolation.NewPlan.
	mem, err := limits.ParseMemory(c.String("memory"))
	if err != nil {
		return isolation.Options{}, err
	}
	timeout, err := limits.ParseTimeout(c.String("timeout"))
	if err != nil {
		return isolation.Options{}, err
	}
	o := isolation.Options{
		Image:   c.String("image"),
		Limits:  limits.Config{Memory: mem, Timeout: timeout},
		Name:    c.String("name"),
		CLI:     c.String("cli"),
		Context: c.String("context"),
		Runtime: c.String("runtime"),
	}
	if c.Args().Present() {
		o.Exec = c.Args().Slice()
	}
	return o, nil
}
