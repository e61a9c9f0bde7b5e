package main

import (
	"os"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestRefusesAnotherDistribution: a wheel is installed under its file's
// name and the line's pin only if its .dist-info and METADATA say the
// same distribution and version; otherwise the image would hold evil 2.0
// where the requirements file says good 1.0, as pip refuses to do.
func TestRefusesAnotherDistribution(t *testing.T) {
	const file = "good-1.0-py3-none-any.whl"
	mod := map[string]string{"good.py": "G = 1\n"}
	for _, c := range []struct {
		name, info, metaName, metaVersion string
		extra                             map[string]string
		want                              string
	}{
		{"another dist-info", "evil-2.0.dist-info", "evil", "2.0", nil,
			"line 1: good==1.0: " + file + ": evil-2.0.dist-info: not good 1.0's .dist-info (good-1.0.dist-info)"},
		{"another name in dist-info", "evil-1.0.dist-info", "good", "1.0", nil,
			"line 1: good==1.0: " + file + ": evil-1.0.dist-info: not good 1.0's .dist-info (good-1.0.dist-info)"},
		{"another version in dist-info", "good-2.0.dist-info", "good", "1.0", nil,
			"line 1: good==1.0: " + file + ": good-2.0.dist-info: not good 1.0's .dist-info (good-1.0.dist-info)"},
		{"another name in METADATA", "good-1.0.dist-info", "evil", "1.0", nil,
			"line 1: good==1.0: " + file + ": good-1.0.dist-info/METADATA: Name is evil, not good"},
		{"another version in METADATA", "good-1.0.dist-info", "good", "2.0", nil,
			"line 1: good==1.0: " + file + ": good-1.0.dist-info/METADATA: Version is 2.0, not 1.0"},
		{"no name in METADATA", "good-1.0.dist-info", "", "1.0", nil,
			"line 1: good==1.0: " + file + ": good-1.0.dist-info/METADATA: Name is , not good"},
		{"a second dist-info", "good-1.0.dist-info", "good", "1.0", map[string]string{"evil-2.0.dist-info/METADATA": "Name: evil\n"},
			"line 1: good==1.0: " + file + ": more than one .dist-info directory: evil-2.0.dist-info, good-1.0.dist-info"},
		{"another's data", "good-1.0.dist-info", "good", "1.0", map[string]string{"evil-2.0.data/purelib/evil.py": "E = 1\n"},
			"line 1: good==1.0: " + file + ": evil-2.0.data/purelib/evil.py: a .data directory not good-1.0.data"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := house{dir: t.TempDir()}
			files := map[string]string{}
			for k, v := range mod {
				files[k] = v
			}
			for k, v := range c.extra {
				files[k] = v
			}
			sum := buildWheel(t, h.dir, file, c.info, c.metaName, c.metaVersion, files, nil)
			site := t.TempDir()
			code, out, errs := h.run(t, "install", h.requirements(t, "good==1.0 --hash=sha256:"+sum+"\n"), site)
			assert.Check(t, is.Equal(code, 1))
			assert.Check(t, is.Equal(out, ""))
			assert.Check(t, is.Contains(errs, c.want))
			left, err := os.ReadDir(site)
			assert.NilError(t, err)
			assert.Check(t, is.Len(left, 0), "install wrote files though it refused")
		})
	}

	// The names compare as PEP 503 and PEP 427 spell them: runs of -_.
	// are one, and case is not read.
	t.Run("a name spelled otherwise", func(t *testing.T) {
		h := house{dir: t.TempDir()}
		sum := buildWheel(t, h.dir, "Good_Pkg-1.0-py3-none-any.whl", "good_pkg-1.0.dist-info", "Good.Pkg", "1.0", map[string]string{"good_pkg.py": ""}, nil)
		code, out, errs := h.run(t, "check", h.requirements(t, "good-pkg==1.0 --hash=sha256:"+sum+"\n"), "")
		assert.Check(t, is.Equal(code, 0), errs)
		assert.Check(t, is.Equal(out, "line 1: good-pkg==1.0: Good_Pkg-1.0-py3-none-any.whl\n"))
	})
}
