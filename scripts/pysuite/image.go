package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// buildTestImage adds the pinned test suite to the Python image.
func buildTestImage(root, work, image string) (string, error) {
	pkg, version, sum, err := testsuitePin(root)
	if err != nil {
		return "", err
	}
	deb, err := downloadDeb(work, pkg, version, sum)
	if err != nil {
		return "", err
	}
	return buildOnto(work, image, deb)
}

// testsuitePin is the package, version and SHA-256 to install: those of
// testsuite.lock, unless the interpreter's version differs.
func testsuitePin(root string) (pkg, version, sum string, err error) {
	lock, err := os.ReadFile(filepath.Join(root, "scripts", "pysuite", "testsuite.lock"))
	if err != nil {
		return "", "", "", err
	}
	f := strings.Fields(string(lock))
	if len(f) != 3 {
		return "", "", "", errors.New("testsuite.lock: want one line: PACKAGE VERSION SHA256")
	}
	pkg, version, sum = f[0], f[1], f[2]
	// The suite must be the interpreter's own version. Where the tests run
	// the Python image from a refreshed copy of its lock (scripts/test.sh,
	// when the mirror replaced a pinned package), take that version.
	if lock := os.Getenv("SYNAPSE_PYTHON_LOCK"); lock != "" {
		if v, err := lockedVersion(lock, "libpython3.11-stdlib"); err == nil && v != version {
			fmt.Fprintf(os.Stderr, "pysuite: testsuite.lock is stale (%s, the interpreter is %s); testing with %s=%s unverified; renew the lock\n",
				version, v, pkg, v)
			version, sum = v, ""
		}
	}
	return pkg, version, sum, nil
}

// downloadDeb fetches pkg=version into work/debs and checks it against sum
// (none when sum is empty); it returns the .deb's path.
func downloadDeb(work, pkg, version, sum string) (string, error) {
	debs := filepath.Join(work, "debs")
	if err := os.MkdirAll(debs, 0o755); err != nil {
		return "", err
	}
	dl := command(debs, "apt-get", "download", "-q", pkg+"="+version)
	dl.Stderr = nil // apt's notes on running as root
	if err := dl.Run(); err != nil {
		return "", fmt.Errorf("apt-get download %s=%s: %w (the interpreter's version must match; see testsuite.lock)", pkg, version, err)
	}
	matches, _ := filepath.Glob(filepath.Join(debs, "*.deb"))
	if len(matches) != 1 {
		return "", fmt.Errorf("%s: want one .deb, got %v", pkg, matches)
	}
	b, err := os.ReadFile(matches[0])
	if err != nil {
		return "", err
	}
	if got := sha256.Sum256(b); sum != "" && hex.EncodeToString(got[:]) != sum {
		return "", fmt.Errorf("%s %s has SHA-256 %x, testsuite.lock says %s", pkg, version, got, sum)
	}
	return matches[0], nil
}

// buildOnto builds, from image, an image with deb's files (less its
// /usr/share) and returns its ID.
func buildOnto(work, image, deb string) (string, error) {
	ctx := filepath.Join(work, "context")
	if err := os.MkdirAll(filepath.Join(ctx, "root"), 0o755); err != nil {
		return "", err
	}
	if err := command(work, "dpkg-deb", "-x", deb, filepath.Join(ctx, "root")).Run(); err != nil {
		return "", err
	}
	_ = os.RemoveAll(filepath.Join(ctx, "root", "usr", "share"))
	dockerfile := "FROM " + image + "\nCOPY root/ /\n"
	if err := os.WriteFile(filepath.Join(ctx, "Dockerfile"), []byte(dockerfile), 0o644); err != nil {
		return "", err
	}
	build := command(ctx, "docker", "build", "--quiet", "--pull=false", "--tag", "synapse-pysuite:local", ".")
	var stderr bytes.Buffer
	build.Stderr = &stderr // the legacy builder's notice, shown only on failure
	out, err := build.Output()
	if err != nil {
		return "", fmt.Errorf("docker build of the test image: %w: %s", err, stderr.Bytes())
	}
	return strings.TrimSpace(string(out)), nil
}

// lockedVersion is pkg's version in a lock of "PACKAGE VERSION SHA256" lines.
func lockedVersion(lock, pkg string) (string, error) {
	b, err := os.ReadFile(lock)
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == pkg {
			return f[1], nil
		}
	}
	return "", fmt.Errorf("%s: no %s", lock, pkg)
}

// outcomes are one run of a module: tests passed, and the outcome of every
// other test ("failed: ...", "error: ...", "skipped: ...") by id.
