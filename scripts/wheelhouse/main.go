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
//	wheelhouse check   --wheels DIR --requirements FILE --python 3.11 --arch amd64|arm64
//	wheelhouse install --wheels DIR --requirements FILE --python 3.11 --arch amd64|arm64 --site DIR
//
// check prints the wheel each line installs; it and install refuse, each
// problem on a line of stderr naming its requirements line, before any
// file is written: an unpinned line, a URL or path, a missing or wrong
// hash, a wheel absent from DIR, a source distribution alone, a wheel
// for another Python, ABI or architecture, a wheel whose files are not
// its RECORD's, and a file the site directory already has.
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

func run(args []string, stdout, stderr io.Writer) int {
	usage := func() int {
		fmt.Fprintln(stderr, "usage: wheelhouse check|install --wheels DIR --requirements FILE --python 3.N --arch amd64|arm64 [--site DIR]")
		return 2
	}
	if len(args) == 0 || (args[0] != "check" && args[0] != "install") {
		return usage()
	}
	fl := flag.NewFlagSet("wheelhouse", flag.ContinueOnError)
	fl.SetOutput(stderr)
	wheels := fl.String("wheels", "", "the directory of the wheels")
	reqFile := fl.String("requirements", "", "the requirements file, with hashes")
	python := fl.String("python", "", "the image's Python, 3.N")
	arch := fl.String("arch", "", "the image's architecture")
	site := fl.String("site", "", "install: the site directory in the unpacked root")
	if fl.Parse(args[1:]) != nil || fl.NArg() != 0 || *wheels == "" || *reqFile == "" || (args[0] == "install") != (*site != "") {
		return usage()
	}
	t, err := targetFor(*python, *arch)
	if err != nil {
		fmt.Fprintln(stderr, "wheelhouse:", err)
		return 2
	}
	text, err := os.ReadFile(*reqFile)
	if err != nil {
		fmt.Fprintln(stderr, "wheelhouse: --requirements:", err)
		return 2
	}
	fail := func(problems []string) int {
		for _, p := range problems {
			fmt.Fprintf(stderr, "wheelhouse: %s: %s\n", *reqFile, p)
		}
		return 1
	}
	reqs, problems := parseRequirements(string(text))
	if len(problems) > 0 {
		return fail(problems)
	}
	chosen, problems := choose(reqs, *wheels, t)
	if len(problems) > 0 {
		return fail(problems)
	}
	var all []unpacked
	for _, c := range chosen {
		u, err := readWheel(c)
		if err != nil {
			problems = append(problems, fmt.Sprintf("line %d: %s: %v", c.req.line, c.req.text, err))
		}
		all = append(all, u)
	}
	if len(problems) > 0 {
		return fail(problems)
	}
	if args[0] == "check" {
		for _, c := range chosen {
			fmt.Fprintf(stdout, "line %d: %s: %s\n", c.req.line, c.req.text, c.wheel.file)
		}
		return 0
	}
	if err := install(all, *site); err != nil {
		fmt.Fprintln(stderr, "wheelhouse:", err)
		return 1
	}
	return 0
}
