// Package tests is the live boundary suite: it builds the tool and its
// images, then runs the real `synapse-isolation run` path against the
// real Docker engine with payloads that really try to cross each boundary.
// Without a reachable engine it skips loudly; under CI=true it fails.
//
// SYNAPSE_SUITE picks a part: "quick" (scripts/test.sh) is every boundary
// on the images of the quick kinds of isolation/container/images/kinds (its tier
// column) under runc and gVisor; "heavy" (scripts/test.sh --heavy) is the
// heavy kinds' images and every image's second, reproducibility build.
// Unset, both run. A test of the other part skips, naming the command
// that runs it.
package tests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	toolBin      string            // the built synapse-isolation binary
	pysuiteBin   string            // the built scripts/pysuite
	seccomplog   string            // the built scripts/seccomplog
	kinds        []imageKind       // isolation/container/images/kinds, in its order
	images       map[string]string // by kind, the images of this part: $(imageEnv(kind)) or built by scripts/build-image.sh KIND
	refImage     string            // the reference image, the first kind's
	probeImage   string            // runner + static probe
	hostileImage string            // the probe as a lying runner
	gateway      string            // the host's docker0 address, as containers would reach it
	engineErr    error             // why the engine is unusable, if it is
	suite        string            // SYNAPSE_SUITE: quick, heavy, or "" for both
)

// The images of the kinds that tests of their own language name ("" in
// a part that has not built them).
var pythonImage, scienceImage, cImage string

// The parts of the suite (SYNAPSE_SUITE).
const (
	quickSuite = "quick"
	heavySuite = "heavy"
)

func TestMain(m *testing.M) { os.Exit(setup(m)) }

func setup(m *testing.M) int {
	switch suite = os.Getenv("SYNAPSE_SUITE"); suite {
	case "", quickSuite, heavySuite:
	default:
		fmt.Fprintf(os.Stderr, "FAIL: SYNAPSE_SUITE=%q: want quick, heavy or nothing (both)\n", suite)
		return 1
	}
	var err error
	if kinds, err = readKinds(filepath.Join("..", "isolation", "container", "images", "kinds")); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: %v\n", err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "docker", "version", "--format", "{{.Server.Version}}").CombinedOutput(); err != nil {
		engineErr = fmt.Errorf("docker engine unreachable: %v: %s", err, bytes.TrimSpace(out))
		if os.Getenv("CI") == "true" {
			fmt.Fprintf(os.Stderr, "FAIL: CI=true and %v: the boundary suite must run against a real engine\n", engineErr)
			return 1
		}
		fmt.Fprintf(os.Stderr, "\n*** SKIPPING the live boundary suite: %v ***\n\n", engineErr)
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "synapse-boundary")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := build(dir); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: building the suite's binaries and images: %v\n", err)
		return 1
	}
	code := m.Run()
	stopSecondEngine()
	stopSSH()
	// By the suite's own tags, never by ID: a second copy of the suite
	// builds the same bytes into the same image, which its tag keeps.
	for _, tag := range []string{probeTag, hostileTag} {
		_ = exec.Command("docker", "rmi", tag).Run()
	}
	return code
}

// The suite's own tags of the probe and hostile images: this process's,
// so a second copy of the suite on the engine has others.
var (
	probeTag   = fmt.Sprintf("synapse-test-probe:%d", os.Getpid())
	hostileTag = fmt.Sprintf("synapse-test-hostile:%d", os.Getpid())
)

func build(dir string) error {
	root, err := filepath.Abs("..")
	if err != nil {
		return err
	}
	// Every program the suite runs, in one go build (its packages compiled
	// side by side) into dir, each under its package's name: the tool, the
	// runner and the probe (the probe image's context), and the scripts
	// that tests run. CGO_ENABLED=0 and -trimpath, as build-image.sh
	// builds the runner: the packages they share come from the build cache.
	toolBin = filepath.Join(dir, "synapse-isolation")
	pysuiteBin, seccomplog = filepath.Join(dir, "pysuite"), filepath.Join(dir, "seccomplog")
	pkgs := []string{".", "./isolation/container/runner", "./tests/probe", "./scripts/pysuite", "./scripts/seccomplog"}
	cmd := exec.Command("go", append([]string{"build", "-trimpath", "-o", dir + string(filepath.Separator)}, pkgs...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v: %s", strings.Join(pkgs, " "), err, out)
	}
	// The images of this part of the suite, the reference image's in
	// both, built side by side (a Debian-based one is a Debian unpack and
	// a docker build; build-image.sh skips one whose inputs an image on
	// the engine was built from). The heavy part also runs tests on the
	// quick part's images: with them built, those cost nothing there.
	var part []imageKind
	for i, k := range kinds {
		if i == 0 || suite != quickSuite || k.tier == quickSuite {
			part = append(part, k)
		}
	}
	ids := make([]string, len(part))
	errs := make([]error, len(part))
	var wg sync.WaitGroup
	for i, k := range part {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[i], errs[i] = buildKind(root, k, k.tag)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	images = map[string]string{}
	for i, k := range part {
		images[k.name] = ids[i]
	}
	refImage = images[kinds[0].name]
	pythonImage, scienceImage, cImage = images["python"], images["science"], images["c"]
	if probeImage, err = buildImage(dir, filepath.Join(root, "tests", "testdata", "probe.Dockerfile"), probeTag); err != nil {
		return err
	}
	if hostileImage, err = buildImage(dir, filepath.Join(root, "tests", "testdata", "hostile.Dockerfile"), hostileTag); err != nil {
		return err
	}
	out, _ := exec.Command("docker", "network", "inspect", "bridge", "--format", "{{range .IPAM.Config}}{{.Gateway}}{{end}}").Output()
	gateway = strings.TrimSpace(string(out))
	if gateway == "" {
		gateway = "172.17.0.1"
	}
	return nil
}

// imageKind is a line of isolation/container/images/kinds, the registry of the
// images scripts/build-image.sh builds.
type imageKind struct {
	name string // build-image.sh's argument, and the kind's directory
	tag  string // the tag build-image.sh gives its image
	root string // how its root is made: none, or scripts/ROOT-root.sh
	tier string // the part of the suite that builds and tests it: quick or heavy
}

// readKinds reads the registry at path: a table whose first line that is
// not a comment names its columns.
func readKinds(path string) ([]imageKind, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cols map[string]int
	var ks []imageKind
	seen := map[string]bool{}
	for n, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if cols == nil {
			cols = map[string]int{}
			for i, c := range f {
				cols[c] = i
			}
			for _, c := range []string{"kind", "tag", "root", "tier"} {
				if _, ok := cols[c]; !ok {
					return nil, fmt.Errorf("%s:%d: no %s column in %q", path, n+1, c, line)
				}
			}
			continue
		}
		if len(f) != len(cols) {
			return nil, fmt.Errorf("%s:%d: %d fields, want %d: %q", path, n+1, len(f), len(cols), line)
		}
		k := imageKind{name: f[cols["kind"]], tag: f[cols["tag"]], root: f[cols["root"]], tier: f[cols["tier"]]}
		// The name goes into environment variables' names and paths.
		if strings.Trim(k.name, "abcdefghijklmnopqrstuvwxyz0123456789") != "" || seen[k.name] {
			return nil, fmt.Errorf("%s:%d: kind %q: want a new name of lowercase letters and digits", path, n+1, k.name)
		}
		if k.tier != quickSuite && k.tier != heavySuite {
			return nil, fmt.Errorf("%s:%d: kind %s: tier %q, want quick or heavy", path, n+1, k.name, k.tier)
		}
		seen[k.name] = true
		ks = append(ks, k)
	}
	if len(ks) == 0 {
		return nil, fmt.Errorf("%s: no image kind", path)
	}
	return ks, nil
}

// imageEnv names the variable that names an image built already for
// kind, instead of building one: SYNAPSE_TEST_IMAGE for the reference
// image, else SYNAPSE_TEST_<KIND>_IMAGE.
func imageEnv(kind imageKind) string {
	if kind.name == kinds[0].name {
		return "SYNAPSE_TEST_IMAGE"
	}
	return "SYNAPSE_TEST_" + strings.ToUpper(kind.name) + "_IMAGE"
}

// buildKind builds the image of kind under tag, from the lock
// SYNAPSE_<KIND>_LOCK names if set, unless imageEnv(kind) names one (for
// the kind's own tag); flags go to build-image.sh (--rebuild: build even
// if an image of the same inputs is on the engine).
func buildKind(root string, kind imageKind, tag string, flags ...string) (string, error) {
	if id := os.Getenv(imageEnv(kind)); id != "" && tag == kind.tag {
		return id, nil
	}
	args := append([]string{kind.name}, flags...)
	if lock := os.Getenv("SYNAPSE_" + strings.ToUpper(kind.name) + "_LOCK"); lock != "" {
		args = append(args, "--lock", lock)
	}
	cmd := exec.Command(filepath.Join(root, "scripts", "build-image.sh"), args...)
	cmd.Env = append(os.Environ(), "SYNAPSE_IMAGE_TAG="+tag)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("scripts/build-image.sh %s: %v: %s", kind.name, err, stderr.Bytes())
	}
	return strings.TrimSpace(string(out)), nil
}

// kindNamed is the registry's kind of that name; a test of a kind the
// registry lacks fails.
func kindNamed(t testing.TB, name string) imageKind {
	t.Helper()
	for _, k := range kinds {
		if k.name == name {
			return k
		}
	}
	t.Fatalf("no image kind %q in isolation/container/images/kinds", name)
	return imageKind{}
}

func buildImage(dir, dockerfile, tag string) (string, error) {
	out, err := exec.Command("docker", "build", "--quiet", "--tag", tag, "--file", dockerfile, dir).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("docker build %s: %v: %s", filepath.Base(dockerfile), err, ee.Stderr)
		}
		return "", fmt.Errorf("docker build %s: %v", filepath.Base(dockerfile), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// needEngine skips (loudly) without an engine; TestMain has already failed
// the run under CI=true. It is the first call of every test of the quick
// part, which skips in the heavy part.
func needEngine(t testing.TB) {
	t.Helper()
	needPart(t, quickSuite)
}

// needHeavy is needEngine for a test (or subtest) of the heavy part: the
// heavy kinds' images, or a second build of an image.
func needHeavy(t *testing.T) {
	t.Helper()
	needPart(t, heavySuite)
}

// needPart skips without an engine, and a test of part (quick, heavy;
// "" for both) where SYNAPSE_SUITE names the other.
func needPart(t testing.TB, part string) {
	t.Helper()
	if engineErr != nil {
		t.Skipf("SKIPPED, NOT PASSED: %v", engineErr)
	}
	switch {
	case part == "" || suite == "" || suite == part:
	case part == quickSuite:
		t.Skip("quick part of the suite: scripts/test.sh runs it")
	default:
		t.Skip("heavy part of the suite: scripts/test.sh --heavy runs it")
	}
}

// needKind is needEngine, or needHeavy, for a test of the image of the
// kind of that name: its tier's.
func needKind(t testing.TB, name string) {
	t.Helper()
	needPart(t, kindNamed(t, name).tier)
}
