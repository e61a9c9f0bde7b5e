package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// target is the image a wheel must run on: its Python (3.11 is minor 11)
// and its architecture's name in platform tags, and the glibc it has.
type target struct {
	minor   int
	machine string // x86_64, aarch64
	glibc   int    // 2.N: N
}

// targetFor is the Debian 12 image of arch: Python 3.11, glibc 2.36.
func targetFor(python, arch string) (target, error) {
	t := target{glibc: 36}
	major, minor, ok := strings.Cut(python, ".")
	n, err := strconv.Atoi(minor)
	if !ok || major != "3" || err != nil {
		return t, fmt.Errorf("--python %q: want 3.N", python)
	}
	t.minor = n
	switch arch {
	case "amd64":
		t.machine = "x86_64"
	case "arm64":
		t.machine = "aarch64"
	default:
		return t, fmt.Errorf("--arch %q: want amd64 or arm64", arch)
	}
	return t, nil
}

// wheelName is a wheel's file name as the format spells it:
// {distribution}-{version}(-{build})?-{python}-{abi}-{platform}.whl, each
// tag a set written with dots.
type wheelName struct {
	file, name, version   string // name normalized
	dist                  string // the name as the file spells it
	python, abi, platform []string
}

var manylinux = regexp.MustCompile(`^manylinux_2_([0-9]+)_(.+)$`)

func parseWheelName(file string) (wheelName, error) {
	base, ok := strings.CutSuffix(file, ".whl")
	parts := strings.Split(base, "-")
	if !ok || (len(parts) != 5 && len(parts) != 6) {
		return wheelName{}, fmt.Errorf("%s: not a wheel's file name (name-version[-build]-python-abi-platform.whl)", file)
	}
	n := len(parts)
	return wheelName{
		file: file, name: normalize(parts[0]), version: parts[1], dist: parts[0],
		python: strings.Split(parts[n-3], "."), abi: strings.Split(parts[n-2], "."), platform: strings.Split(parts[n-1], "."),
	}, nil
}

// fits says whether the wheel runs on t: one of its tag triples is one
// the image's Python would install. Pure wheels (py3, none, any) always
// do; a platform wheel must be for CPython 3.minor's ABI (or the stable
// ABI of a Python no newer) on a glibc Linux of t's machine whose glibc is
// no newer than t's.
func (w wheelName) fits(t target) bool {
	for _, py := range w.python {
		for _, abi := range w.abi {
			for _, plat := range w.platform {
				if t.triple(py, abi, plat) {
					return true
				}
			}
		}
	}
	return false
}

func (t target) triple(py, abi, plat string) bool {
	own := fmt.Sprintf("cp3%d", t.minor)
	if plat == "any" {
		return abi == "none" && (py == "py3" || py == own || py == fmt.Sprintf("py3%d", t.minor))
	}
	if !t.platform(plat) {
		return false
	}
	switch abi {
	case own:
		return py == own
	case "abi3":
		m, err := strconv.Atoi(strings.TrimPrefix(py, "cp3"))
		return strings.HasPrefix(py, "cp3") && err == nil && m <= t.minor
	case "none":
		return py == "py3" || py == own
	}
	return false
}

// platform says whether a platform tag is a glibc Linux of t's machine
// and glibc: manylinux1 is glibc 2.5, manylinux2010 2.12, manylinux2014
// 2.17; linux_MACHINE is a build for this very system's kind.
func (t target) platform(plat string) bool {
	legacy := map[string]int{"manylinux1": 5, "manylinux2010": 12, "manylinux2014": 17}
	for prefix, glibc := range legacy {
		if plat == prefix+"_"+t.machine {
			return glibc <= t.glibc
		}
	}
	if m := manylinux.FindStringSubmatch(plat); m != nil {
		g, err := strconv.Atoi(m[1])
		return err == nil && m[2] == t.machine && g <= t.glibc
	}
	return plat == "linux_"+t.machine
}
