// Command wheelhouse installs an operator's Python wheels into an image's
// root at build time, offline, from a directory and a requirements file
// with hashes (as pip-compile --generate-hashes writes one): every line
// pinned to one version and listing the SHA-256 its wheel may have, the
// whole set listed, nothing resolved and nothing fetched. Installing is
// unpacking, as the wheel format says: no pip, no setuptools, no code of
// the wheel's runs. scripts/build-image.sh runs `check` before it builds
// anything and `install` into the unpacked root.
//
// Usage:
//
//	wheelhouse check   --wheels DIR --requirements FILE --python 3.11 --arch amd64|arm64 [--startup-hooks]
//	wheelhouse install --wheels DIR --requirements FILE --python 3.11 --arch amd64|arm64 --site DIR [--startup-hooks]
//
// check prints the wheel each line installs; it and install refuse, each
// problem on a line of stderr naming its requirements line, before any
// file is written: an unpinned line, a URL or path, a missing or wrong
// hash, a wheel absent from DIR, a source distribution alone, a wheel
// for another Python, ABI or architecture, a wheel whose files are not
// its RECORD's, whose .dist-info or METADATA is another distribution's
// or version's, that decompresses past its bound or the set's (a zip
// bomb), and a file the site directory already has.
//
// A wheel that installs code Python's site runs at every interpreter
// start, before any program (a *.pth file at the top of the site
// directory, a module or package sitecustomize or usercustomize), is
// refused too unless --startup-hooks is given: the operator then wants
// them, and they run only inside the image (nothing of a wheel's runs
// here).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usageLine = "usage: wheelhouse check|install --wheels DIR --requirements FILE --python 3.N --arch amd64|arm64 [--site DIR] [--startup-hooks]"

// options are a run's flags.
type options struct {
	command, wheels, requirements, python, arch, site string
	startupHooks                                      bool
}

// parseOptions reads args; ok is false for a usage error, which it has
// reported to stderr.
func parseOptions(args []string, stderr io.Writer) (options, bool) {
	var o options
	if len(args) == 0 || (args[0] != "check" && args[0] != "install") {
		return o, false
	}
	o.command = args[0]
	fl := flag.NewFlagSet("wheelhouse", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.StringVar(&o.wheels, "wheels", "", "the directory of the wheels")
	fl.StringVar(&o.requirements, "requirements", "", "the requirements file, with hashes")
	fl.StringVar(&o.python, "python", "", "the image's Python, 3.N")
	fl.StringVar(&o.arch, "arch", "", "the image's architecture")
	fl.StringVar(&o.site, "site", "", "install: the site directory in the unpacked root")
	fl.BoolVar(&o.startupHooks, "startup-hooks", false, "install *.pth files and sitecustomize or usercustomize modules, which Python runs at every start")
	if fl.Parse(args[1:]) != nil || fl.NArg() != 0 || o.wheels == "" || o.requirements == "" || (o.command == "install") != (o.site != "") {
		return o, false
	}
	return o, true
}

func run(args []string, stdout, stderr io.Writer) int {
	return runBounded(args, defaultBounds, stdout, stderr)
}

// runBounded is run within b.
func runBounded(args []string, b bounds, stdout, stderr io.Writer) int {
	o, ok := parseOptions(args, stderr)
	if !ok {
		fmt.Fprintln(stderr, usageLine)
		return 2
	}
	t, err := targetFor(o.python, o.arch)
	if err != nil {
		fmt.Fprintln(stderr, "wheelhouse:", err)
		return 2
	}
	text, err := readRequirementsFile(o.requirements)
	if err != nil {
		fmt.Fprintln(stderr, "wheelhouse: --requirements:", err)
		return 2
	}
	fail := func(problems []string) int {
		for _, p := range problems {
			fmt.Fprintf(stderr, "wheelhouse: %s: %s\n", o.requirements, p)
		}
		return 1
	}
	reqs, problems := parseRequirements(text)
	if len(problems) > 0 {
		return fail(problems)
	}
	chosen, problems := choose(reqs, o.wheels, t)
	if len(problems) > 0 {
		return fail(problems)
	}
	// One wheel at a time, streamed: what is kept of each is its plan.
	m := &meter{bounds: b}
	var plans []plan
	for _, c := range chosen {
		p, err := inspect(c, m, o.startupHooks)
		if err != nil {
			problems = append(problems, fmt.Sprintf("line %d: %s: %v", c.req.line, c.req.text, err))
		}
		plans = append(plans, p)
	}
	if len(problems) > 0 {
		return fail(problems)
	}
	if o.command == "check" {
		for _, c := range chosen {
			fmt.Fprintf(stdout, "line %d: %s: %s\n", c.req.line, c.req.text, c.wheel.file)
		}
		return 0
	}
	if err := install(plans, o.site, b); err != nil {
		fmt.Fprintln(stderr, "wheelhouse:", err)
		return 1
	}
	return 0
}
