package isolation_test

import (
	"go/build"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// The module's import graph by side of the boundary, held as Go's own
// deps_test.go holds the standard library's: a change that makes the
// container side import the host side, or the policy import anything,
// fails here rather than in a reviewer's memory.

const module = "github.com/synapse-lang/synapse-isolation"

// side is the side of the boundary a package of the module is on.
type side string

const (
	policy    side = "policy"    // limits, limits/seccomp, dockerargs: pure, what an auditor reads
	wire      side = "wire"      // the host-container contract
	container side = "container" // what runs in the image
	host      side = "host"      // the library, the command, what lies below them
	tooling   side = "tooling"   // scripts and the live suite: anything
)

// sides places each package by its path's longest listed prefix.
var sides = []struct {
	prefix string
	side   side
}{
	{"limits", policy},
	{"limits/seccomp", policy},
	{"dockerargs", policy},
	{"isolation/protocol", wire},
	{"isolation/container", container},
	{"isolation", host},
	{"", host}, // main
	{"scripts", tooling},
	{"tests", tooling},
}

// allowed are the module's packages each side may import.
var allowed = map[side][]side{
	policy:    {policy},
	wire:      {wire, policy},
	container: {container, wire, policy},
	host:      {host, wire, policy},
	tooling:   {policy, wire, container, host, tooling},
}

// policyImports are the module's packages each package of the policy side
// may import, narrower than the side's rule: the policy is a chain, each
// package built only on those below it. A policy package not listed here
// fails the test, so a new one states its place in the chain.
var policyImports = map[string][]string{
	"limits":         {},
	"limits/seccomp": {"limits"},
	"dockerargs":     {"limits", "limits/seccomp"},
}

// machine are the imports through which a program reaches the machine
// itself: files, other programs, the network, raw syscalls. The policy
// imports none of them, so it does no I/O whoever calls it (its tests may,
// and gen_syscalls.go is a generator go generate runs, built into nothing).
var machine = []string{"os", "os/exec", "io/fs", "io/ioutil", "path/filepath", "net", "syscall", "golang.org/x/sys/unix"}

// layers are the host side's, from the top: the command, the library's
// API, what lies below it (the supervisor, the engine's client, removal,
// attestation, the judge's relay). A package imports only from its own
// layer or those below it; the longest listed prefix places it.
var layers = []struct {
	prefix string
	rank   int
}{
	{"", 3}, // main
	{"isolation/cli", 3},
	{"isolation", 2},
	{"isolation/internal", 1},
}

func layerOf(pkg string) int {
	best, rank := -1, 0
	for _, l := range layers {
		if (pkg == l.prefix || strings.HasPrefix(pkg, l.prefix+"/") || l.prefix == "") && len(l.prefix) > best {
			best, rank = len(l.prefix), l.rank
		}
	}
	return rank
}

// exceptions are imports across the rules, each with its reason.
var exceptions = map[[2]string]string{
	{"isolation/cli/internal/inproc", "isolation/container/interp"}: "eval runs trusted Starlark in-process",
}

func sideOf(pkg string) side {
	best, s := -1, tooling
	for _, e := range sides {
		if (pkg == e.prefix || strings.HasPrefix(pkg, e.prefix+"/") || e.prefix == "") && len(e.prefix) > best {
			best, s = len(e.prefix), e.side
		}
	}
	return s
}

// TestArchitecture: every package of the module imports only what its
// side may, and on the host side nothing from a layer above its own; of
// the policy, limits imports nothing of the module but
// itself, limits/seccomp only limits, and dockerargs only the two, and
// none of them anything that reaches the machine.
func TestArchitecture(t *testing.T) {
	root := ".."
	var checked int
	used := map[[2]string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
			return filepath.SkipDir
		}
		p, err := build.ImportDir(path, 0)
		if err != nil {
			return nil // no Go files here
		}
		rel, _ := filepath.Rel(root, path)
		pkg := strings.TrimPrefix(filepath.ToSlash(rel), ".")
		checked++
		mayImport, listed := policyImports[pkg]
		if sideOf(pkg) == policy && !listed {
			t.Errorf("%s is on the policy side but not in policyImports", pkg)
		}
		for _, imp := range p.Imports {
			if sideOf(pkg) == policy && slices.Contains(machine, imp) {
				t.Errorf("%s (policy side) imports %s: the policy does no I/O", pkg, imp)
			}
			dep, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			if _, ok := exceptions[[2]string{pkg, dep}]; ok {
				used[[2]string{pkg, dep}] = true
				continue
			}
			from, to := sideOf(pkg), sideOf(dep)
			if (listed && !slices.Contains(mayImport, dep)) || !slices.Contains(allowed[from], to) {
				t.Errorf("%s (%s side) imports %s (%s side)", pkg, from, dep, to)
			}
			if from == host && to == host && layerOf(dep) > layerOf(pkg) {
				t.Errorf("%s imports %s, a layer above it: what lies below the API never calls up into it", pkg, dep)
			}
		}
		return nil
	})
	assert.NilError(t, err)
	assert.Assert(t, checked > 30, "only %d packages found from %s", checked, root)
	for e, why := range exceptions {
		if !used[e] {
			t.Errorf("the exception %s -> %s (%s) is no import any more: take it out", e[0], e[1], why)
		}
	}
}
