package main

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
)

// requirement is one line of a requirements file: a distribution pinned
// to one version, and the SHA-256 digests a file of it may have.
type requirement struct {
	line    int    // the line it starts on, 1-based
	text    string // the requirement as written, options left out
	name    string // normalized (PEP 503)
	version string
	hashes  []string // lowercase hex
}

var (
	// name[extras]==version: extras only choose dependencies, and every
	// dependency is listed, so they are read and left alone.
	pinned = regexp.MustCompile(`^([A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(\[[A-Za-z0-9._,\s-]*\])?\s*==\s*([A-Za-z0-9][A-Za-z0-9.+!_-]*)$`)
	hexSum = regexp.MustCompile(`^[0-9a-f]{64}$`)
	runs   = regexp.MustCompile(`[-_.]+`)
)

// normalize is a distribution's name as PEP 503 compares it.
func normalize(name string) string { return strings.ToLower(runs.ReplaceAllString(name, "-")) }

// parseRequirements reads a requirements file as pip-compile
// --generate-hashes writes it: one pinned requirement a logical line
// (backslash continues it), each with its --hash=sha256:... options;
// comments and blank lines. Anything that could fetch, or install a set
// other than the one listed, is refused with its line: an unpinned or
// wildcard version, a URL or path, an option other than --hash, an
// environment marker (not evaluated here: list the image's own set), a
// line without a hash, a name listed twice. Every problem is returned,
// one a line.
func parseRequirements(text string) ([]requirement, []string) {
	var reqs []requirement
	var problems []string
	seen := map[string]int{}
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		start := i + 1
		logical := stripComment(lines[i])
		for strings.HasSuffix(logical, `\`) && i+1 < len(lines) {
			i++
			logical = strings.TrimSuffix(logical, `\`) + " " + stripComment(lines[i])
		}
		logical = strings.TrimSpace(strings.TrimSuffix(logical, `\`))
		if logical == "" {
			continue
		}
		r, err := parseLine(start, logical)
		if err != nil {
			problems = append(problems, fmt.Sprintf("line %d: %v", start, err))
			continue
		}
		if first, dup := seen[r.name]; dup {
			problems = append(problems, fmt.Sprintf("line %d: %s is listed on line %d too", start, r.name, first))
			continue
		}
		seen[r.name] = start
		reqs = append(reqs, r)
	}
	if len(reqs) == 0 && len(problems) == 0 {
		problems = append(problems, "no requirement in the file")
	}
	return reqs, problems
}

// stripComment drops a comment: a # at the line's start or after
// whitespace (a URL's fragment is not one, and is refused as a URL).
func stripComment(line string) string {
	for i := 0; i < len(line); i++ {
		if line[i] == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t') {
			return strings.TrimRight(line[:i], " \t")
		}
	}
	return strings.TrimRight(line, " \t\r")
}

func parseLine(n int, logical string) (requirement, error) {
	fields := strings.Fields(logical)
	var spec []string
	var hashes []string
	for j := 0; j < len(fields); j++ {
		f := fields[j]
		if !strings.HasPrefix(f, "-") {
			spec = append(spec, f)
			continue
		}
		value, ok := strings.CutPrefix(f, "--hash=")
		if !ok && f == "--hash" && j+1 < len(fields) {
			j++
			value, ok = fields[j], true
		}
		if !ok {
			return requirement{}, fmt.Errorf("option %s: only --hash=sha256:... is read; nothing is fetched and no index is used, the wheels are --wheels DIR's", f)
		}
		sum, isSHA := strings.CutPrefix(value, "sha256:")
		if !isSHA || !hexSum.MatchString(strings.ToLower(sum)) {
			return requirement{}, fmt.Errorf("--hash=%s: want sha256: and 64 hex digits", value)
		}
		hashes = append(hashes, strings.ToLower(sum))
	}
	text := strings.Join(spec, " ")
	switch {
	case text == "":
		return requirement{}, fmt.Errorf("hashes with no requirement")
	case strings.Contains(text, ";"):
		return requirement{}, fmt.Errorf("%s: an environment marker is not evaluated here; list the set for this image alone", text)
	case strings.Contains(text, "://") || strings.Contains(text, " @ ") || strings.Contains(text, "@") ||
		strings.ContainsAny(text, `/\`) || strings.HasSuffix(text, ".whl") || strings.HasSuffix(text, ".tar.gz") || strings.HasSuffix(text, ".zip"):
		return requirement{}, fmt.Errorf("%s: a URL or path requirement; want name==version, from --wheels DIR", text)
	}
	m := pinned.FindStringSubmatch(text)
	if m == nil {
		return requirement{}, fmt.Errorf("%s: not pinned; want name==version (one exact version, no wildcard)", text)
	}
	if len(hashes) == 0 {
		return requirement{}, fmt.Errorf("%s: no --hash=sha256:...; every line names the digests its wheel may have", text)
	}
	return requirement{line: n, text: text, name: normalize(m[1]), version: m[4], hashes: hashes}, nil
}

// readRequirementsFile reads the requirements file, within
// maxRequirementsBytes.
func readRequirementsFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	text, err := io.ReadAll(io.LimitReader(f, maxRequirementsBytes+1))
	if err == nil && len(text) > maxRequirementsBytes {
		err = fmt.Errorf("%s: over %d MiB", path, maxRequirementsBytes>>20)
	}
	return string(text), err
}
