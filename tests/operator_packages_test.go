package tests

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// ownBuild is one run of scripts/build-image.sh for an operator's set,
// under its own tag (removed after the test) so the kind's is untouched.
type ownBuild struct {
	id, stderr string
	code       int
}

func buildOwn(t *testing.T, tag string, args ...string) ownBuild {
	t.Helper()
	root, err := filepath.Abs("..")
	assert.NilError(t, err)
	cmd := exec.Command(filepath.Join(root, "scripts", "build-image.sh"), args...)
	cmd.Env = append(os.Environ(), "SYNAPSE_IMAGE_TAG="+tag)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	b := ownBuild{id: strings.TrimSpace(stdout.String()), stderr: stderr.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		b.code = ee.ExitCode()
	} else {
		assert.NilError(t, err)
	}
	t.Cleanup(func() { _ = exec.Command("docker", "rmi", tag).Run() })
	return b
}

// ownRun runs src on an operator's image and checks that nothing is left.
func ownRun(t *testing.T, image, src string) toolResult {
	t.Helper()
	r := tool(t, nil, "", "run", "--image", image, "--code", src)
	if r.res.Container != "" {
		assertGone(t, r.res.Container)
		assertRunGone(t, r.res.RunID)
	}
	return r
}

// doctorContents is doctor's "image contents" line for image.
func doctorContents(t *testing.T, image string) string {
	t.Helper()
	r := tool(t, nil, "", "doctor", "--image", image)
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.Contains(line, "image contents") {
			return line
		}
	}
	t.Fatalf("doctor printed no image contents line:\n%s", r.stdout)
	return ""
}

func fileDigest(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	assert.NilError(t, err)
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// TestOwnDebianPackages: --with python3-requests resolves requests and
// what it needs into a lock of the operator's, which keeps the python
// image's own pins; the image imports requests, doctor names the lock by
// its digest, and a second build from that lock is the same image.
func TestOwnDebianPackages(t *testing.T) {
	needHeavy(t)
	t.Parallel()
	lock := filepath.Join(t.TempDir(), "own.lock")
	first := buildOwn(t, "synapse-python:with-check", "python", "--with", "python3-requests", "--lock", lock, "--update-lock")
	assert.Equal(t, first.code, 0, first.stderr)
	own, err := os.ReadFile(lock)
	assert.NilError(t, err)
	project, err := os.ReadFile(filepath.Join("..", "isolation", "container", "images", "python", "amd64.lock"))
	assert.NilError(t, err)
	if out, err := exec.Command("docker", "version", "--format", "{{.Server.Arch}}").Output(); err == nil && strings.TrimSpace(string(out)) == "arm64" {
		project, err = os.ReadFile(filepath.Join("..", "isolation", "container", "images", "python", "arm64.lock"))
		assert.NilError(t, err)
	}
	lines := strings.Split(strings.TrimSpace(string(own)), "\n")
	for _, l := range strings.Split(strings.TrimSpace(string(project)), "\n") {
		assert.Check(t, slices.Contains(lines, l), "the operator's lock lost the python image's pin %q", l)
	}
	var requests string
	for _, l := range lines {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "python3-requests" {
			requests = f[1]
		}
	}
	assert.Assert(t, requests != "", "the lock pins no python3-requests:\n%s", own)

	r := ownRun(t, first.id, "import requests\nprint(requests.__version__, requests.__file__)")
	assert.Equal(t, r.res.Verdict, "ok", r.stdout+r.stderr)
	version, _, _ := strings.Cut(requests, "+")
	assert.Check(t, is.Equal(r.res.Output, version+" /usr/lib/python3/dist-packages/requests/__init__.py\n"))
	assert.Check(t, is.Contains(doctorContents(t, first.id), "Debian lock "+fileDigest(t, lock)))

	again := buildOwn(t, "synapse-python:with-check-again", "python", "--with", "python3-requests", "--lock", lock, "--rebuild")
	assert.Equal(t, again.code, 0, again.stderr)
	assert.Check(t, is.Equal(again.id, first.id), "a rebuild from the same lock is another image")
}

// wheel writes a pure wheel NAME-VERSION-py3-none-any.whl of files into
// dir, with its dist-info (WHEEL, METADATA, RECORD), and returns its
// SHA-256: a wheel is a zip, so no index is needed to make one.
func wheel(t *testing.T, dir, name, version string, files map[string]string) string {
	t.Helper()
	info := name + "-" + version + ".dist-info/"
	files[info+"WHEEL"] = "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
	files[info+"METADATA"] = "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\n"
	var names []string
	var record strings.Builder
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		sum := sha256.Sum256([]byte(files[n]))
		fmt.Fprintf(&record, "%s,sha256=%s,%d\n", n, base64.RawURLEncoding.EncodeToString(sum[:]), len(files[n]))
	}
	files[info+"RECORD"] = record.String() + info + "RECORD,,\n"
	names = append(names, info+"RECORD")
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range names {
		w, err := zw.Create(n)
		assert.NilError(t, err)
		_, err = w.Write([]byte(files[n]))
		assert.NilError(t, err)
	}
	assert.NilError(t, zw.Close())
	assert.NilError(t, os.WriteFile(filepath.Join(dir, name+"-"+version+"-py3-none-any.whl"), buf.Bytes(), 0o644))
	sum := sha256.Sum256(buf.Bytes())
	return hex.EncodeToString(sum[:])
}

// wheelhouse is a directory of two wheels, one importing the other, and
// its requirements file, as pip-compile --generate-hashes writes one.
func wheelhouse(t *testing.T) (dir, requirements string, sums [2]string) {
	dir = t.TempDir()
	sums[0] = wheel(t, dir, "tinyalpha", "1.0", map[string]string{"tinyalpha/__init__.py": "def hello():\n    return 'alpha'\n"})
	sums[1] = wheel(t, dir, "tiny_beta", "0.2", map[string]string{"tiny_beta.py": "import tinyalpha\nVALUE = tinyalpha.hello() + '+beta'\n"})
	requirements = filepath.Join(dir, "requirements.txt")
	text := "# pip-compile --generate-hashes\ntinyalpha==1.0 \\\n    --hash=sha256:" + sums[0] + "\n    # via tiny-beta\n" +
		"tiny-beta==0.2 \\\n    --hash=sha256:" + sums[1] + "\n"
	assert.NilError(t, os.WriteFile(requirements, []byte(text), 0o644))
	return dir, requirements, sums
}

// TestOwnWheels: a wheelhouse the test makes itself is installed into the
// python image, both wheels import (from bytecode compiled at build
// time), a warm container has imported the one --preload names, doctor
// names the requirements by their digest, and a rebuild is the same
// image; a preload of a module the image lacks fails the build, naming
// it.
func TestOwnWheels(t *testing.T) {
	needHeavy(t)
	t.Parallel()
	dir, reqs, _ := wheelhouse(t)
	first := buildOwn(t, "synapse-python:wheels-check", "python", "--wheels", dir, "--requirements", reqs, "--preload", "tiny_beta")
	assert.Equal(t, first.code, 0, first.stderr)
	labels, err := exec.Command("docker", "image", "inspect", "--format", `{{index .Config.Labels "io.synapse-isolation.preload"}}`, first.id).Output()
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(labels), `["tiny_beta"]`+"\n"))
	const loaded = "import sys; print('tiny_beta' in sys.modules, 'tinyalpha' in sys.modules)"
	b := tool(t, nil, mustJSON(t, map[string]any{"id": 1, "source": loaded})+"\n", "batch", "--image", first.id, "--timeout", "60s")
	rs := parseBatch(t, b.stdout)
	assert.Assert(t, is.Len(rs, 1), b.stdout+b.stderr)
	assert.Check(t, is.Equal(rs[0].Output, "True True\n"), "a warm line's interpreter did not import the preload: %+v", rs[0])
	assertRunGone(t, rs[0].RunID)
	r := ownRun(t, first.id, "import tiny_beta, tinyalpha\nprint(tiny_beta.VALUE, tiny_beta.__cached__)")
	assert.Equal(t, r.res.Verdict, "ok", r.stdout+r.stderr)
	assert.Check(t, is.Equal(r.res.Output, "alpha+beta /usr/lib/python3/dist-packages/__pycache__/tiny_beta.cpython-311.pyc\n"))
	// Compiled at build time: the root is read-only, so a .pyc found is
	// one the image holds.
	r = ownRun(t, first.id, "import os\nprint(sorted(os.listdir('/usr/lib/python3/dist-packages/tinyalpha/__pycache__')))")
	assert.Check(t, is.Equal(r.res.Output, "['__init__.cpython-311.pyc']\n"))
	assert.Check(t, is.Contains(doctorContents(t, first.id), "requirements "+fileDigest(t, reqs)))

	again := buildOwn(t, "synapse-python:wheels-check-again", "python", "--wheels", dir, "--requirements", reqs, "--preload", "tiny_beta", "--rebuild")
	assert.Equal(t, again.code, 0, again.stderr)
	assert.Check(t, is.Equal(again.id, first.id), "a rebuild from the same wheels is another image")

	missing := buildOwn(t, "synapse-python:preload-check", "python", "--wheels", dir, "--requirements", reqs, "--preload", "tiny_beta,tiny_gamma")
	assert.Check(t, missing.code != 0)
	assert.Check(t, is.Contains(missing.stderr, "python image: --preload: no module tiny_gamma in the image"))
	assert.Check(t, is.Equal(missing.id, ""))
}

// TestOwnSetRefused: what cannot be baked in is refused before anything
// is built, naming its requirements line or its package: a wrong hash, an
// unpinned line, a wheel not in the directory, Debian packages that are
// or would bring a shell, or that the mirror lacks, and --startup-hooks
// with no wheels.
func TestOwnSetRefused(t *testing.T) {
	needEngine(t)
	t.Parallel()
	dir, _, sums := wheelhouse(t)
	write := func(text string) string {
		path := filepath.Join(t.TempDir(), "requirements.txt")
		assert.NilError(t, os.WriteFile(path, []byte(text), 0o644))
		return path
	}
	lock := filepath.Join(t.TempDir(), "own.lock")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"wrong hash", []string{"--wheels", dir, "--requirements", write("tinyalpha==1.0 --hash=sha256:" + sums[1] + "\n")},
			"line 1: tinyalpha==1.0: tinyalpha-1.0-py3-none-any.whl has sha256:" + sums[0] + ", which the line does not list"},
		{"unpinned", []string{"--wheels", dir, "--requirements", write("tinyalpha==1.0 --hash=sha256:" + sums[0] + "\ntiny-beta>=0.1 --hash=sha256:" + sums[1] + "\n")},
			"line 2: tiny-beta>=0.1: not pinned; want name==version"},
		{"missing wheel", []string{"--wheels", dir, "--requirements", write("# a wheel not there\nrequests==2.31.0 --hash=sha256:" + sums[0] + "\n")},
			"line 2: requests==2.31.0: no wheel of requests 2.31.0 in " + dir},
		{"a shell", []string{"--with", "zsh", "--lock", lock, "--update-lock"},
			"--with zsh: a shell or perl, which no image may hold"},
		{"brings a shell", []string{"--with", "cronic", "--lock", lock, "--update-lock"},
			"--with cronic: would bring bash (cronic, bash), a shell or perl, which no image may hold"},
		{"not in the mirror", []string{"--with", "no-such-package-here", "--lock", lock, "--update-lock"},
			"--with no-such-package-here: not in the mirror's"},
		{"the kind's own lock", []string{"--with", "python3-requests"},
			"--with needs --lock FILE, a lock of your own"},
		{"startup hooks without wheels", []string{"--startup-hooks"},
			"--startup-hooks goes with --wheels DIR --requirements FILE"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tag := "synapse-python:refusal-check"
			b := buildOwn(t, tag, append([]string{"python"}, c.args...)...)
			assert.Check(t, b.code != 0, "build-image.sh took it: %s", b.stderr)
			assert.Check(t, is.Contains(b.stderr, c.want))
			assert.Check(t, is.Equal(b.id, ""))
			assert.Check(t, !strings.Contains(b.stderr, "building the"), "something was built:\n%s", b.stderr)
			assert.Check(t, exec.Command("docker", "image", "inspect", tag).Run() != nil, "an image was tagged %s", tag)
			_, err := os.Stat(lock)
			assert.Check(t, os.IsNotExist(err), "a lock was written")
		})
	}
}
