package tests

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// The README's table of the runtime images starts at the line that starts
// with this, its header; its rows follow the delimiter row.
const imagesTableHeader = "| kind: `scripts/build-image.sh KIND`"

// starlarkModule is the Go module of the interpreter the runner embeds:
// a kind with no root (no Debian packages) runs Starlark, whose version
// is go.mod's.
const starlarkModule = "go.starlark.net"

// The labels of a kind's Dockerfile that the table shows.
const (
	execLabel       = "io.synapse-isolation.exec"
	languageLabel   = "io.synapse-isolation.language"
	timeFactorLabel = "io.synapse-isolation.time-factor"
)

// imageRow is a row of the README's table of the runtime images, each
// cell as written, less its padding.
type imageRow struct {
	line                                         int // in README.md
	kind, language, source, compile, run, factor string
}

// versionCell is the end of a row's language cell: the package (or Go
// module) in backticks, then its version.
var versionCell = regexp.MustCompile("`([^`]+)` ([^ `]+)$")

// TestReadmeImages holds the README's table of the runtime images to the
// files it is a view of, with no engine: one row per kind of
// isolation/container/images/kinds, in its order; a row's version is its package's
// in the kind's amd64.lock (one its packages file wants, where it has
// one), or for a kind with no root go.mod's Starlark; its source, compile
// and run commands and time factor are what the kind's Dockerfile labels
// declare, the commands' words joined by spaces.
func TestReadmeImages(t *testing.T) {
	rows := readmeImageRows(t, readmeText(t))
	byKind := map[string]imageRow{}
	var order []string
	for _, r := range rows {
		if _, dup := byKind[r.kind]; dup {
			t.Errorf("README.md:%d: a second row for kind %q", r.line, r.kind)
			continue
		}
		byKind[r.kind] = r
		order = append(order, r.kind)
	}
	var want []string
	listed := map[string]bool{}
	for _, k := range kinds {
		want = append(want, k.name)
		listed[k.name] = true
		if _, ok := byKind[k.name]; !ok {
			t.Errorf("README.md: the images table has no row for kind %q of isolation/container/images/kinds", k.name)
		}
	}
	var readmeOrder []string
	for _, kind := range order {
		if !listed[kind] {
			t.Errorf("README.md:%d: a row for kind %q, which isolation/container/images/kinds does not list", byKind[kind].line, kind)
			continue
		}
		readmeOrder = append(readmeOrder, kind)
	}
	var registryOrder []string
	for _, kind := range want {
		if _, ok := byKind[kind]; ok {
			registryOrder = append(registryOrder, kind)
		}
	}
	assert.Check(t, is.DeepEqual(readmeOrder, registryOrder), "README.md: the images table's rows are not in isolation/container/images/kinds' order")

	for _, k := range kinds {
		r, ok := byKind[k.name]
		if !ok {
			continue
		}
		t.Run(k.name, func(t *testing.T) {
			dir := filepath.Join("..", "isolation", "container", "images", k.name)
			labels, err := dockerfileLabels(filepath.Join(dir, "Dockerfile"))
			assert.NilError(t, err)
			facts, err := declaredFacts(labels)
			assert.NilError(t, err, "kind %s", k.name)
			where := fmt.Sprintf("README.md:%d: kind %s", r.line, k.name)
			assert.Check(t, is.Equal(r.source, facts.source), "%s: source", where)
			assert.Check(t, is.Equal(r.compile, facts.compile), "%s: compile command", where)
			assert.Check(t, is.Equal(r.run, facts.run), "%s: run command", where)
			assert.Check(t, is.Equal(r.factor, facts.timeFactor), "%s: time factor", where)

			m := versionCell.FindStringSubmatch(r.language)
			if !assert.Check(t, m != nil, "%s: the language cell %q does not end with `PACKAGE` VERSION", where, r.language) {
				return
			}
			pkg, version := m[1], m[2]
			if k.root == "none" {
				assert.Check(t, is.Equal(pkg, starlarkModule), "%s: a kind with no root runs the runner's Starlark", where)
				got, err := goModVersion(filepath.Join("..", "go.mod"), starlarkModule)
				assert.NilError(t, err)
				assert.Check(t, is.Equal(version, got), "%s: %s's version in go.mod", where, starlarkModule)
				return
			}
			lock, err := lockVersions(filepath.Join(dir, "amd64.lock"))
			assert.NilError(t, err)
			got, ok := lock[pkg]
			if !assert.Check(t, ok, "%s: %s is not in its amd64.lock", where, pkg) {
				return
			}
			assert.Check(t, is.Equal(version, got), "%s: %s's version in its amd64.lock", where, pkg)
			wanted, err := wantedPackages(filepath.Join(dir, "packages"))
			assert.NilError(t, err)
			if wanted != nil {
				assert.Check(t, wanted[pkg], "%s: %s is not one its packages file wants (a dependency's version is not the language's)", where, pkg)
			}
		})
	}
}

// readmeImageRows returns the rows of the README's table of the runtime
// images: six cells each, the kind's name in backticks.
func readmeImageRows(t *testing.T, readme string) []imageRow {
	t.Helper()
	lines := strings.Split(readme, "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, imagesTableHeader) {
			assert.Assert(t, start < 0, "README.md:%d: a second images table", i+1)
			start = i
		}
	}
	assert.Assert(t, start >= 0, "README.md has no images table (a line starting %q)", imagesTableHeader)
	assert.Assert(t, start+1 < len(lines) && strings.HasPrefix(lines[start+1], "|---"), "README.md:%d: no delimiter row under the images table's header", start+2)
	var rows []imageRow
	for i := start + 2; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
		cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(lines[i], "|"), "|"), "|")
		assert.Assert(t, is.Len(cells, 6), "README.md:%d: an images table row of %d cells, want 6: %s", i+1, len(cells), lines[i])
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		kind := strings.Trim(cells[0], "`")
		assert.Assert(t, cells[0] == "`"+kind+"`" && kind != "", "README.md:%d: the kind cell %q is not a name in backticks", i+1, cells[0])
		rows = append(rows, imageRow{line: i + 1, kind: kind, language: cells[1], source: cells[2], compile: cells[3], run: cells[4], factor: cells[5]})
	}
	return rows
}

// imageFacts is what a kind's labels declare, written as the table's
// cells are.
type imageFacts struct{ source, compile, run, timeFactor string }

// declaredFacts returns the cells a kind's labels give: an interpreter's
// (exec: its source is the runner's file protocol.ProgramName, its run
// command the label's), a language's (its source file, compile and run
// commands), or neither, Starlark's, which the runner runs itself (and a
// judge's tests are not for). A time factor is the label's, else 1.
func declaredFacts(labels map[string]string) (imageFacts, error) {
	var f imageFacts
	execJSON, hasExec := labels[execLabel]
	lang, hasLang := labels[languageLabel]
	switch {
	case hasExec && hasLang:
		return f, fmt.Errorf("both %s and %s", execLabel, languageLabel)
	case hasExec:
		var argv []string
		if err := json.Unmarshal([]byte(execJSON), &argv); err != nil {
			return f, fmt.Errorf("%s: %v", execLabel, err)
		}
		f.source, f.run = inBackticks(protocol.ProgramName), inBackticks(strings.Join(argv, " "))
	case hasLang:
		var l struct {
			Source       string
			Compile, Run []string
		}
		d := json.NewDecoder(strings.NewReader(lang))
		d.DisallowUnknownFields()
		if err := d.Decode(&l); err != nil {
			return f, fmt.Errorf("%s: %v", languageLabel, err)
		}
		f.source, f.compile, f.run = inBackticks(l.Source), inBackticks(strings.Join(l.Compile, " ")), inBackticks(strings.Join(l.Run, " "))
	default:
		if v, ok := labels[timeFactorLabel]; ok {
			return f, fmt.Errorf("%s %q with no interpreter or language", timeFactorLabel, v)
		}
		return f, nil
	}
	f.timeFactor = "1"
	if v, ok := labels[timeFactorLabel]; ok {
		f.timeFactor = v
	}
	return f, nil
}

// inBackticks is s in backticks, or nothing for nothing.
func inBackticks(s string) string {
	if s == "" {
		return ""
	}
	return "`" + s + "`"
}

// dockerfileLabels reads the io.synapse-isolation labels of a Dockerfile
// whose LABEL instructions are on one line each (isolation/container/images/kinds
// says so), each value a double-quoted string, as JSON writes one.
func dockerfileLabels(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	labels := map[string]string{}
	for n, line := range strings.Split(string(data), "\n") {
		rest, ok := strings.CutPrefix(line, "LABEL ")
		if !ok {
			continue
		}
		key, value, ok := strings.Cut(rest, "=")
		if !ok {
			return nil, fmt.Errorf("%s:%d: want LABEL KEY=\"VALUE\": %s", path, n+1, line)
		}
		if !strings.HasPrefix(key, "io.synapse-isolation.") {
			continue
		}
		var v string
		if err := json.Unmarshal([]byte(strings.TrimSpace(value)), &v); err != nil {
			return nil, fmt.Errorf("%s:%d: %s: %v", path, n+1, key, err)
		}
		labels[key] = v
	}
	return labels, nil
}

// lockVersions reads a kind's lock, `package version sha256` a line.
func lockVersions(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	versions := map[string]string{}
	for n, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("%s:%d: want `package version sha256`: %q", path, n+1, line)
		}
		versions[f[0]] = f[1]
	}
	return versions, nil
}

// wantedPackages reads the `want` lines of a kind's packages file (what
// its lock is resolved from); nil for a kind with none, whose lock lists
// its packages by hand.
func wantedPackages(path string) (map[string]bool, error) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	wanted := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "want" {
			for _, p := range f[1:] {
				wanted[p] = true
			}
		}
	}
	return wanted, nil
}

// goModVersion returns the version go.mod requires of module.
func goModVersion(path, module string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(s.Text()), "require "))
		if len(fields) >= 2 && fields[0] == module {
			return fields[1], nil
		}
	}
	if err := s.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("%s requires no %s", path, module)
}
