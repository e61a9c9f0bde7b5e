package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// makeWheel writes NAME-VERSION-TAG.whl into dir holding files (path to
// text) and a dist-info with WHEEL, METADATA and a RECORD of them all;
// tamper, if set, changes a file after RECORD was written. It returns
// the wheel's SHA-256.
func makeWheel(t *testing.T, dir, name, version, tag string, files map[string]string, tamper func(map[string]string)) string {
	t.Helper()
	return buildWheel(t, dir, name+"-"+version+"-"+tag+".whl", name+"-"+version+".dist-info", name, version, files, tamper)
}

// buildWheel writes file into dir with the dist-info directory info, whose
// METADATA names name and version: makeWheel's, for a wheel whose file
// name and dist-info may disagree.
func buildWheel(t *testing.T, dir, file, info, name, version string, files map[string]string, tamper func(map[string]string)) string {
	t.Helper()
	all := map[string]string{
		info + "/WHEEL":    "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
		info + "/METADATA": "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\n\nA description.\nName: not a header\n",
	}
	for k, v := range files {
		all[k] = v
	}
	var record strings.Builder
	for _, k := range sortedKeys(all) {
		fmt.Fprintf(&record, "%s,%s,%d\n", k, recordHash([]byte(all[k])), len(all[k]))
	}
	record.WriteString(info + "/RECORD,,\n")
	all[info+"/RECORD"] = record.String()
	if tamper != nil {
		tamper(all)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, k := range sortedKeys(all) {
		method := zip.Deflate
		if len(all[k]) > 1<<20 {
			method = zip.Store // deflating it under -race is slow
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: k, Method: method})
		assert.NilError(t, err)
		_, err = w.Write([]byte(all[k]))
		assert.NilError(t, err)
	}
	assert.NilError(t, zw.Close())
	assert.NilError(t, os.WriteFile(filepath.Join(dir, file), buf.Bytes(), 0o644))
	sum := sha256.Sum256(buf.Bytes())
	return hex.EncodeToString(sum[:])
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

// recordHash is data's SHA-256 as RECORD writes it.
func recordHash(data []byte) string {
	sum := sha256.Sum256(data)
	return recordDigest(sum[:])
}

// house is a wheelhouse of two pure wheels and the requirements that
// pin them, as pip-compile --generate-hashes writes them.
type house struct {
	dir, alpha, beta string
	bounds           bounds // defaultBounds if zero
}

func newHouse(t *testing.T) house {
	dir := t.TempDir()
	h := house{dir: dir}
	h.alpha = makeWheel(t, dir, "alpha_pkg", "1.0", "py3-none-any", map[string]string{"alpha_pkg/__init__.py": "X = 1\n"}, nil)
	h.beta = makeWheel(t, dir, "beta", "2.3.1", "py2.py3-none-any", map[string]string{
		"beta.py":                          "Y = 2\n",
		"beta-2.3.1.data/purelib/beta2.py": "Z = 3\n",
	}, nil)
	return h
}

func (h house) requirements(t *testing.T, text string) string {
	path := filepath.Join(t.TempDir(), "requirements.txt")
	assert.NilError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

func (h house) run(t *testing.T, command, reqs, site string, flags ...string) (int, string, string) {
	var out, errs bytes.Buffer
	args := []string{command, "--wheels", h.dir, "--requirements", reqs, "--python", "3.11", "--arch", "amd64"}
	if site != "" {
		args = append(args, "--site", site)
	}
	args = append(args, flags...)
	b := h.bounds
	if b == (bounds{}) {
		b = defaultBounds
	}
	code := runBounded(args, b, &out, &errs)
	return code, out.String(), errs.String()
}

func (h house) goodRequirements() string {
	return "# generated\nalpha-pkg==1.0 \\\n    --hash=sha256:" + h.alpha + "\n    # via -r requirements.in\nbeta==2.3.1 \\\n    --hash=sha256:" +
		strings.Repeat("0", 64) + " \\\n    --hash=sha256:" + h.beta + "\n"
}
