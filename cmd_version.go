package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the version",
		Action: func(c *cli.Context) error {
			v := "(devel)"
			if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
				v = bi.Main.Version
			}
			fmt.Fprintf(c.App.Writer, "synapse-isolation %s (protocol v%d, %s)\n", v, protocol.Version, runtime.Version())
			return nil
		},
	}
}
