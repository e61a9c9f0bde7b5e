package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// choice is the wheel a requirement installs.
type choice struct {
	req   requirement
	path  string
	wheel wheelName
}

// sdistSuffixes are the source distributions' archives: nothing is built
// here, so one of them never satisfies a requirement.
var sdistSuffixes = []string{".tar.gz", ".zip", ".tar.bz2", ".tgz"}

// choose finds each requirement's wheel in dir: a file of its name and
// version whose SHA-256 the line lists and whose tags fit the image. It
// returns every problem, naming the line, rather than the first.
func choose(reqs []requirement, dir string, t target) ([]choice, []string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, []string{fmt.Sprintf("--wheels: %v", err)}
	}
	var wheels []wheelName
	var others []string
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		if w, err := parseWheelName(e.Name()); err == nil {
			wheels = append(wheels, w)
		} else {
			others = append(others, e.Name())
		}
	}
	var chosen []choice
	var problems []string
	for _, r := range reqs {
		c, err := chooseOne(r, dir, wheels, others, t)
		if err != nil {
			problems = append(problems, fmt.Sprintf("line %d: %s: %v", r.line, r.text, err))
			continue
		}
		chosen = append(chosen, c)
	}
	return chosen, problems
}

func chooseOne(r requirement, dir string, wheels []wheelName, others []string, t target) (choice, error) {
	var named []wheelName
	for _, w := range wheels {
		if w.name == r.name && strings.EqualFold(w.version, r.version) {
			named = append(named, w)
		}
	}
	if len(named) == 0 {
		for _, f := range others {
			for _, s := range sdistSuffixes {
				if base, ok := strings.CutSuffix(f, s); ok && normalize(base) == normalize(r.name+"-"+r.version) {
					return choice{}, fmt.Errorf("only a source distribution, %s, is in %s; wheels alone are installed, nothing is built", f, dir)
				}
			}
		}
		return choice{}, fmt.Errorf("no wheel of %s %s in %s", r.name, r.version, dir)
	}
	var listed []wheelName
	var wrong []string
	for _, w := range named {
		sum, err := fileSHA256(filepath.Join(dir, w.file))
		if err != nil {
			return choice{}, err
		}
		if slices.Contains(r.hashes, sum) {
			listed = append(listed, w)
		} else {
			wrong = append(wrong, w.file+" has sha256:"+sum)
		}
	}
	if len(listed) == 0 {
		return choice{}, fmt.Errorf("%s, which the line does not list", strings.Join(wrong, "; "))
	}
	for _, w := range listed {
		if w.fits(t) {
			return choice{req: r, path: filepath.Join(dir, w.file), wheel: w}, nil
		}
	}
	names := make([]string, len(listed))
	for i, w := range listed {
		names[i] = w.file
	}
	return choice{}, fmt.Errorf("%s: not for this image (CPython 3.%d on glibc 2.%d, %s)", strings.Join(names, ", "), t.minor, t.glibc, t.machine)
}

func fileSHA256(path string) (string, error) {
	f, _, err := openRegular(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
