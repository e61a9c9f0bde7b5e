package main

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestInstallsTheListedWheels(t *testing.T) {
	h := newHouse(t)
	reqs := h.requirements(t, h.goodRequirements())
	code, out, errs := h.run(t, "check", reqs, "")
	assert.Equal(t, code, 0, errs)
	assert.Check(t, is.Equal(out, "line 2: alpha-pkg==1.0: alpha_pkg-1.0-py3-none-any.whl\nline 5: beta==2.3.1: beta-2.3.1-py2.py3-none-any.whl\n"))

	site := t.TempDir()
	code, _, errs = h.run(t, "install", reqs, site)
	assert.Equal(t, code, 0, errs)
	for name, want := range map[string]string{"alpha_pkg/__init__.py": "X = 1\n", "beta.py": "Y = 2\n", "beta2.py": "Z = 3\n"} {
		got, err := os.ReadFile(filepath.Join(site, name))
		assert.NilError(t, err)
		assert.Check(t, is.Equal(string(got), want), name)
	}
	// The file from beta's .data is recorded where it went.
	record, err := os.ReadFile(filepath.Join(site, "beta-2.3.1.dist-info", "RECORD"))
	assert.NilError(t, err)
	assert.Check(t, is.Contains("\n"+string(record), "\nbeta2.py,"))
	assert.Check(t, !strings.Contains(string(record), ".data/"))
}

// TestRefusesBeforeWriting: each bad input is refused naming its line,
// and the site directory is left as it was.
func TestRefusesBeforeWriting(t *testing.T) {
	h := newHouse(t)
	a := "--hash=sha256:" + h.alpha
	b := "--hash=sha256:" + h.beta
	tampered := makeWheel(t, h.dir, "gamma", "1.0", "py3-none-any", map[string]string{"gamma.py": "G = 1\n"},
		func(all map[string]string) { all["gamma.py"] = "import os\n" })
	scripts := makeWheel(t, h.dir, "delta", "1.0", "py3-none-any", map[string]string{"delta-1.0.data/scripts/delta": "#!python\n"}, nil)
	platform := makeWheel(t, h.dir, "eps", "1.0", "cp311-cp311-manylinux_2_17_aarch64", map[string]string{"eps.py": ""}, nil)
	newer := makeWheel(t, h.dir, "zeta", "1.0", "cp312-cp312-manylinux_2_17_x86_64", map[string]string{"zeta.py": ""}, nil)
	shadow := makeWheel(t, h.dir, "theta", "1.0", "py3-none-any", map[string]string{"theta": "", "theta/a.py": ""}, nil)
	assert.NilError(t, os.WriteFile(filepath.Join(h.dir, "eta-1.0.tar.gz"), []byte("sdist"), 0o644))
	for _, c := range []struct{ name, text, want string }{
		{"unpinned", "alpha-pkg>=1.0 " + a + "\n", "line 1: alpha-pkg>=1.0: not pinned"},
		{"wildcard", "alpha-pkg==1.* " + a + "\n", "line 1: alpha-pkg==1.*: not pinned"},
		{"bare name", "alpha-pkg\n", "line 1: alpha-pkg: not pinned"},
		{"no hash", "beta==2.3.1 " + b + "\nalpha-pkg==1.0\n", "line 2: alpha-pkg==1.0: no --hash=sha256:"},
		{"wrong hash", "alpha-pkg==1.0 --hash=sha256:" + h.beta + "\n", "line 1: alpha-pkg==1.0: alpha_pkg-1.0-py3-none-any.whl has sha256:" + h.alpha + ", which the line does not list"},
		{"md5", "alpha-pkg==1.0 --hash=md5:0123\n", "line 1: --hash=md5:0123: want sha256:"},
		{"missing wheel", "\n\nrequests==2.31.0 " + a + "\n", "line 3: requests==2.31.0: no wheel of requests 2.31.0 in "},
		{"sdist", "eta==1.0 " + a + "\n", "line 1: eta==1.0: only a source distribution, eta-1.0.tar.gz"},
		{"url", "alpha-pkg @ https://example.org/a.whl " + a + "\n", "line 1: alpha-pkg @ https://example.org/a.whl: a URL or path requirement"},
		{"path", "./alpha_pkg-1.0-py3-none-any.whl " + a + "\n", "a URL or path requirement"},
		{"index", "-i https://pypi.org/simple\n", "line 1: option -i: only --hash=sha256:... is read"},
		{"marker", "alpha-pkg==1.0 ; python_version < \"3.8\" " + a + "\n", "line 1: alpha-pkg==1.0 ; python_version < \"3.8\": an environment marker"},
		{"twice", "alpha-pkg==1.0 " + a + "\nAlpha_Pkg==1.0 " + a + "\n", "line 2: alpha-pkg is listed on line 1 too"},
		{"empty", "# nothing\n", "no requirement in the file"},
		{"tampered", "gamma==1.0 --hash=sha256:" + tampered + "\n", "line 1: gamma==1.0: gamma-1.0-py3-none-any.whl: gamma.py: its sha256 is not RECORD's"},
		{"scripts", "delta==1.0 --hash=sha256:" + scripts + "\n", "installs into the image's scripts, outside the site directory"},
		{"other arch", "eps==1.0 --hash=sha256:" + platform + "\n", "line 1: eps==1.0: eps-1.0-cp311-cp311-manylinux_2_17_aarch64.whl: not for this image (CPython 3.11 on glibc 2.36, x86_64)"},
		{"a file where a directory goes", "theta==1.0 --hash=sha256:" + shadow + "\n", "theta-1.0-py3-none-any.whl installs the file theta, where theta-1.0-py3-none-any.whl needs a directory"},
		{"other python", "zeta==1.0 --hash=sha256:" + newer + "\n", "zeta-1.0-cp312-cp312-manylinux_2_17_x86_64.whl: not for this image"},
	} {
		t.Run(c.name, func(t *testing.T) {
			site := t.TempDir()
			code, out, errs := h.run(t, "install", h.requirements(t, c.text), site)
			assert.Check(t, is.Equal(code, 1))
			assert.Check(t, is.Equal(out, ""))
			assert.Check(t, is.Contains(errs, c.want))
			left, err := os.ReadDir(site)
			assert.NilError(t, err)
			assert.Check(t, is.Len(left, 0), "install wrote files though it refused")
		})
	}
}

// TestRefusesWhatTheImageHas: a wheel's file that a Debian package (or
// another wheel) put in the site directory is never overwritten.
func TestRefusesWhatTheImageHas(t *testing.T) {
	h := newHouse(t)
	site := t.TempDir()
	assert.NilError(t, os.WriteFile(filepath.Join(site, "beta.py"), []byte("debian's\n"), 0o644))
	code, _, errs := h.run(t, "install", h.requirements(t, h.goodRequirements()), site)
	assert.Check(t, is.Equal(code, 1))
	assert.Check(t, is.Contains(errs, "beta-2.3.1-py2.py3-none-any.whl: beta.py is in the image already"))
	got, err := os.ReadFile(filepath.Join(site, "beta.py"))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(got), "debian's\n"))
	_, err = os.Stat(filepath.Join(site, "alpha_pkg"))
	assert.Check(t, os.IsNotExist(err), "alpha was written though the install was refused")
}

func TestWheelTagsFitTheImage(t *testing.T) {
	amd, err := targetFor("3.11", "amd64")
	assert.NilError(t, err)
	for file, want := range map[string]bool{
		"a-1-py3-none-any.whl":     true,
		"a-1-py2.py3-none-any.whl": true,
		"a-1-py2-none-any.whl":     false,
		"a-1-cp311-none-any.whl":   true,
		"a-1-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl": true,
		"a-1-cp311-cp311-manylinux_2_38_x86_64.whl":                      false,
		"a-1-cp38-abi3-manylinux2014_x86_64.whl":                         true,
		"a-1-cp311-cp311-musllinux_1_1_x86_64.whl":                       false,
		"a-1-cp311-cp311-manylinux2014_aarch64.whl":                      false,
		"a-1-cp310-cp310-manylinux2014_x86_64.whl":                       false,
		"a-1-cp311-cp311-win_amd64.whl":                                  false,
		"a-1-cp311-cp311-linux_x86_64.whl":                               true,
		"a-1-2-py3-none-any.whl":                                         true,
	} {
		w, err := parseWheelName(file)
		assert.NilError(t, err, file)
		assert.Check(t, is.Equal(w.fits(amd), want), file)
	}
	arm, err := targetFor("3.11", "arm64")
	assert.NilError(t, err)
	w, err := parseWheelName("a-1-cp311-cp311-manylinux2014_aarch64.whl")
	assert.NilError(t, err)
	assert.Check(t, w.fits(arm))
	_, err = parseWheelName("a-1.tar.gz")
	assert.Check(t, err != nil)
}

// TestRefusesHostileArchives: a wheel's archive is the operator's, but a
// bad one still cannot write outside the site directory: a path that
// climbs or is absolute, a link, a wheel past its bound, or a directory
// of the image that is a link; and a link or a FIFO named as a wheel in
// the directory is no wheel (never opened, never waited on).
func TestRefusesHostileArchives(t *testing.T) {
	small := bounds{wheel: 1 << 20, set: 4 << 20, files: 100, directory: 64 << 10}
	for _, c := range []struct {
		name  string
		entry func(zw *zip.Writer) error
		want  string
	}{
		{"climbs", func(zw *zip.Writer) error { _, err := zw.Create("../../etc/evil.py"); return err }, "../../etc/evil.py: not a clean relative path"},
		{"absolute", func(zw *zip.Writer) error { _, err := zw.Create("/etc/evil.py"); return err }, "/etc/evil.py: not a clean relative path"},
		{"link", func(zw *zip.Writer) error {
			h := &zip.FileHeader{Name: "evil.py"}
			h.SetMode(os.ModeSymlink | 0o777)
			w, err := zw.CreateHeader(h)
			if err == nil {
				_, err = w.Write([]byte("/etc/passwd"))
			}
			return err
		}, "evil.py: not a regular file"},
		{"oversize", func(zw *zip.Writer) error {
			w, err := zw.Create("big.bin")
			if err == nil {
				_, err = w.Write(make([]byte, small.wheel+1))
			}
			return err
		}, "big.bin: decompresses past 1 MiB, the bound of a wheel"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var buf bytes.Buffer
			zw := zip.NewWriter(&buf)
			assert.NilError(t, c.entry(zw))
			for name, text := range map[string]string{
				"bad-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\n", "bad-1.0.dist-info/RECORD": "bad-1.0.dist-info/RECORD,,\n",
			} {
				w, err := zw.Create(name)
				assert.NilError(t, err)
				_, err = w.Write([]byte(text))
				assert.NilError(t, err)
			}
			assert.NilError(t, zw.Close())
			file := filepath.Join(dir, "bad-1.0-py3-none-any.whl")
			assert.NilError(t, os.WriteFile(file, buf.Bytes(), 0o644))
			sum, err := fileSHA256(file)
			assert.NilError(t, err)
			h := house{dir: dir, bounds: small}
			site := t.TempDir()
			code, _, errs := h.run(t, "install", h.requirements(t, "bad==1.0 --hash=sha256:"+sum+"\n"), site)
			assert.Check(t, is.Equal(code, 1))
			assert.Check(t, is.Contains(errs, "line 1: bad==1.0: bad-1.0-py3-none-any.whl: "+c.want))
			left, err := os.ReadDir(site)
			assert.NilError(t, err)
			assert.Check(t, is.Len(left, 0))
		})
	}

	t.Run("a linked directory", func(t *testing.T) {
		h := newHouse(t)
		site, outside := t.TempDir(), t.TempDir()
		assert.NilError(t, os.Symlink(outside, filepath.Join(site, "alpha_pkg")))
		code, _, errs := h.run(t, "install", h.requirements(t, h.goodRequirements()), site)
		assert.Check(t, is.Equal(code, 1))
		assert.Check(t, is.Contains(errs, "alpha_pkg-1.0-py3-none-any.whl: alpha_pkg/__init__.py: alpha_pkg in the image is not a directory"))
		left, err := os.ReadDir(outside)
		assert.NilError(t, err)
		assert.Check(t, is.Len(left, 0), "a file was written through the link")
	})

	t.Run("a link and a FIFO named as wheels", func(t *testing.T) {
		h := newHouse(t)
		real := filepath.Join(h.dir, "alpha_pkg-1.0-py3-none-any.whl")
		moved := filepath.Join(t.TempDir(), "alpha.whl")
		assert.NilError(t, os.Rename(real, moved))
		assert.NilError(t, os.Symlink(moved, real))
		assert.NilError(t, syscall.Mkfifo(filepath.Join(h.dir, "beta-2.3.1-py2.py3-none-any.whl.fifo.whl"), 0o644))
		code, _, errs := h.run(t, "check", h.requirements(t, h.goodRequirements()), "")
		assert.Check(t, is.Equal(code, 1))
		assert.Check(t, is.Contains(errs, "line 2: alpha-pkg==1.0: no wheel of alpha-pkg 1.0 in "))
	})
}
