package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestStartupHooks: a file Python's site runs or imports at every start
// (a .pth at the top of the site directory, a module sitecustomize or
// usercustomize) is code of the wheel's that runs before any program; it
// is refused unless --startup-hooks asks for it, and then installed.
func TestStartupHooks(t *testing.T) {
	for _, c := range []struct {
		name, file, want string
	}{
		{"pth", "hook.pth", "hook.pth: a .pth file, which Python's site runs at every start"},
		{"pth from purelib", "hook-1.0.data/purelib/evil.pth", "hook-1.0.data/purelib/evil.pth: a .pth file, which Python's site runs at every start"},
		{"pth from platlib", "hook-1.0.data/platlib/evil.pth", "hook-1.0.data/platlib/evil.pth: a .pth file, which Python's site runs at every start"},
		{"sitecustomize", "sitecustomize.py", "sitecustomize.py: module sitecustomize, which Python's site imports at every start"},
		{"usercustomize", "usercustomize.py", "usercustomize.py: module usercustomize, which Python's site imports at every start"},
		{"sitecustomize package", "sitecustomize/__init__.py", "sitecustomize/__init__.py: module sitecustomize, which Python's site imports at every start"},
		{"sitecustomize extension", "sitecustomize.cpython-311-x86_64-linux-gnu.so", "sitecustomize.cpython-311-x86_64-linux-gnu.so: module sitecustomize"},
		{"sitecustomize bytecode", "sitecustomize.pyc", "sitecustomize.pyc: module sitecustomize"},
		{"usercustomize from platlib", "hook-1.0.data/platlib/usercustomize.abi3.so", "hook-1.0.data/platlib/usercustomize.abi3.so: module usercustomize"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := house{dir: t.TempDir()}
			sum := makeWheel(t, h.dir, "hook", "1.0", "py3-none-any", map[string]string{"hook.py": "", c.file: "import os; os.system('id')\n"}, nil)
			reqs := h.requirements(t, "hook==1.0 --hash=sha256:"+sum+"\n")

			site := t.TempDir()
			code, _, errs := h.run(t, "install", reqs, site)
			assert.Check(t, is.Equal(code, 1))
			assert.Check(t, is.Contains(errs, "line 1: hook==1.0: hook-1.0-py3-none-any.whl: "+c.want))
			assert.Check(t, is.Contains(errs, "--startup-hooks"))
			left, err := os.ReadDir(site)
			assert.NilError(t, err)
			assert.Check(t, is.Len(left, 0), "install wrote files though it refused")

			code, _, errs = h.run(t, "check", reqs, "", "--startup-hooks")
			assert.Check(t, is.Equal(code, 0), errs)
			code, _, errs = h.run(t, "install", reqs, site, "--startup-hooks")
			assert.Check(t, is.Equal(code, 0), errs)
			dest := c.file
			if _, inner, ok := strings.Cut(c.file, ".data/"); ok {
				_, dest, _ = strings.Cut(inner, "/")
			}
			_, err = os.Stat(filepath.Join(site, dest))
			assert.Check(t, is.Nil(err), "the hook the operator asked for is not installed")
		})
	}

	// Deeper in the tree they are a package's own files, which site
	// neither runs nor imports at start.
	t.Run("not at the top", func(t *testing.T) {
		h := house{dir: t.TempDir()}
		sum := makeWheel(t, h.dir, "deep", "1.0", "py3-none-any", map[string]string{
			"deep/sitecustomize.py": "", "deep/data.pth": "", "deep/usercustomize/__init__.py": "",
		}, nil)
		code, _, errs := h.run(t, "check", h.requirements(t, "deep==1.0 --hash=sha256:"+sum+"\n"), "")
		assert.Check(t, is.Equal(code, 0), errs)
	})
}
