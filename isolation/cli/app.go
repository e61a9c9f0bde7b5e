// Package cli is the synapse-isolation command line: it runs untrusted
// source code in a fresh, locked-down Docker container per request, prints
// the exact docker argv it uses, and audits captured docker argvs against
// its policy. The command in the module's root calls Main and nothing else.
//
// Inside this package the name cli is urfave/cli, the flag and command
// library every command is built with.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/removal"
)

// Main runs the command line with args (the program's name first), env as
// its environment and the three streams, and returns the exit status. The
// first SIGINT or SIGTERM cancels ctx's run and the run cleans up, then
// exits 128+signal (signalContext).
func Main(ctx context.Context, args, env []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if code, ok := removal.Reap(args, stdin); ok {
		return code // a run's reaper: this executable started again by the library
	}
	defer handlePipe()()
	ctx, stop := signalContext(ctx)
	defer stop()
	return run(ctx, args, env, stdin, stdout, stderr)
}

// run executes the CLI and returns its exit status. Actions return errors
// and never exit, so every cleanup runs before the process ends. env is
// the environment the CLI reads ($SYNAPSE_IMAGE) and gives the docker
// client; it is a value, not the process's, so tests run side by side.
func run(ctx context.Context, args, env []string, stdin io.Reader, stdout, stderr io.Writer) int {
	out := &checkedWriter{w: stdout}
	app := newApp(stdin, out, stderr)
	app.Metadata = map[string]any{metaArgs: args, metaEnv: env}
	err := app.RunContext(ctx, args)
	var sig *signalError
	if werr := out.failed(); werr != nil && !errors.As(err, &sig) {
		// Whatever the command meant to say, its reader did not get it;
		// a signal's status (128+n) still says who stopped it.
		err = writeFailed(werr)
	}
	if err == nil {
		return 0
	}
	code := exitCode(err)
	var silent *silentError
	if !errors.As(err, &silent) {
		fmt.Fprintf(stderr, "synapse-isolation: %s\n", message(err))
	}
	return code
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	var version bool
	app := &cli.App{
		Name:  "synapse-isolation",
		Usage: "run untrusted source code in a fresh, locked-down Docker container",
		// urfave/cli's own help command is package state that grows with
		// every in-process run; helpCommand below does the same job. A
		// command named help stops urfave/cli from adding --help itself.
		HideHelpCommand: true,
		// --help and --version are this app's own flags: urfave/cli's
		// HelpFlag and VersionFlag are package variables that every run
		// writes to as it parses, so two apps in one process (tests run
		// side by side) would race on them. HideVersion keeps urfave/cli
		// from adding its VersionFlag; the root Action answers --version
		// and the template still shows the version.
		Flags:                 []cli.Flag{helpFlag(), versionFlag(&version)},
		HideVersion:           true,
		HideHelp:              true,
		CustomAppHelpTemplate: strings.Replace(cli.AppHelpTemplate, "{{if not .HideVersion}}", "{{if true}}", -1),
		Version:               readBuildVersion().String(),
		Reader:                stdin,
		Writer:                stdout,
		ErrWriter:             stderr,
		// Without this, urfave/cli calls os.Exit from inside Run for
		// errors that carry an exit code, skipping container cleanup.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError:   onUsageError,
		// Reached only for an unknown command: a rejection, not help.
		Action: func(c *cli.Context) error {
			if version {
				// The same line as the version command's first.
				fmt.Fprintf(c.App.Writer, "%s %s\n", c.App.Name, c.App.Version)
				return nil
			}
			if c.Args().Present() {
				return unknownCommand(c, c.Args().First())
			}
			return cli.ShowAppHelp(c)
		},
		Commands: []*cli.Command{
			runCommand(), batchCommand(), argvCommand(), auditCommand(), doctorCommand(), gcCommand(), evalCommand(), versionCommand(),
			seccompCommand(),
			completionCommand(), manCommand(), helpCommand(),
		},
	}
	for _, cmd := range app.Commands {
		if cmd.OnUsageError == nil {
			cmd.OnUsageError = onUsageError
		}
		cmd.HideHelpCommand = true
		cmd.HideHelp = true // no shared HelpFlag: each command gets its own
		cmd.Flags = append(cmd.Flags, helpFlag())
	}
	return app
}

// helpFlag and versionFlag are fresh per app (see newApp).
func helpFlag() cli.Flag {
	return &cli.BoolFlag{Name: "help", Aliases: []string{"h"}, Usage: "show help", DisableDefaultText: true}
}

func versionFlag(dst *bool) cli.Flag {
	return &cli.BoolFlag{Name: "version", Aliases: []string{"v"}, Usage: "print the version", DisableDefaultText: true, Destination: dst}
}

// onUsageError turns a flag parsing error into a rejection (exit 2) with
// one line on stderr, instead of urfave/cli's usage dump.
func onUsageError(c *cli.Context, err error, _ bool) error { return usageError(c, err) }

// resultUsageError is onUsageError for run and eval, which print their one
// result for a bad flag too, as for every other verdict: in the format
// the raw words ask for, the flags having not parsed (JSON, the default,
// unless they say text).
func resultUsageError(c *cli.Context, err error, _ bool) error {
	format := "json"
	if writtenFormat(c) == "text" {
		format = "text"
	}
	return reportRejected(c, format, usageError(c, err))
}
