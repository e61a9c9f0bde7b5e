package isolation

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
)

// Each test of a declared interpreter has its own image ID: the answer is
// cached per ID, and the other tests' testImage declares none.
var (
	pythonImage = "sha256:" + strings.Repeat("1", 64)
	badImage    = "sha256:" + strings.Repeat("2", 64)
)

func TestParseExecLabel(t *testing.T) {
	t.Parallel()
	for labels, want := range map[string][]string{
		`null`:          nil,
		`{}`:            nil,
		`{"other":"x"}`: nil,
		`{"io.synapse-isolation.exec":"[\"python3\",\"-\"]"}`: {"python3", "-"},
		`{"io.synapse-isolation.exec":" [\"sh\"] "}`:          {"sh"},
	} {
		got, err := parseExecLabel(labels)
		assert.NilError(t, err, labels)
		assert.DeepEqual(t, got, want)
	}
	long := `[` + strings.Repeat(`"a",`, 16) + `"a"]`
	for _, v := range []string{
		``, `python3 -`, `[]`, `null`, `[""]`, `["a",""]`, `[1]`, `["a"] ["b"]`, `["a"]x`, `{"a":1}`, `["a\u0000b"]`,
		`["` + strings.Repeat("x", 257) + `"]`, long,
	} {
		labels := `{"io.synapse-isolation.exec":` + quote(v) + `}`
		_, err := parseExecLabel(labels)
		assert.ErrorContains(t, err, "label io.synapse-isolation.exec: ", "%s", v)
	}
	_, err := parseExecLabel(`not json`)
	assert.ErrorContains(t, err, "its labels are not a JSON object")
}

// TestParsePreloadLabel: an image may declare Python modules a warm
// container imports ahead, for its own Python interpreter only.
func TestParsePreloadLabel(t *testing.T) {
	t.Parallel()
	const py = `"io.synapse-isolation.exec":"[\"python3\",\"-\"]"`
	d, err := parseDeclared(`{` + py + `,"io.synapse-isolation.preload":"[\"numpy\",\"matplotlib.pyplot\"]"}`)
	assert.NilError(t, err)
	assert.DeepEqual(t, d.exec, []string{"python3", "-"})
	assert.DeepEqual(t, d.preload, []string{"numpy", "matplotlib.pyplot"})
	d, err = parseDeclared(`{` + py + `}`)
	assert.NilError(t, err)
	assert.Check(t, d.preload == nil)
	for labels, want := range map[string]string{
		`{` + py + `,"io.synapse-isolation.preload":"numpy"}`:                                       "must be a JSON array of module names",
		`{` + py + `,"io.synapse-isolation.preload":"[]"}`:                                          "must name 1 to 16 modules",
		`{` + py + `,"io.synapse-isolation.preload":"[\"os; import x\"]"}`:                          "is not a Python module name",
		`{"io.synapse-isolation.preload":"[\"numpy\"]"}`:                                            "needs a Python interpreter",
		`{"io.synapse-isolation.exec":"[\"node\",\"-\"]","io.synapse-isolation.preload":"[\"x\"]"}`: "needs a Python interpreter",
	} {
		_, err := parseDeclared(labels)
		assert.ErrorContains(t, err, "label io.synapse-isolation.preload: ", labels)
		assert.ErrorContains(t, err, want, labels)
	}
}

// TestParseLanguageLabel: a language is its source's name, an optional
// compile command and its run command, held to the runner's own rules;
// an image declares it or an interpreter, not both.
func TestParseLanguageLabel(t *testing.T) {
	t.Parallel()
	lang := func(v string) string { return `{"io.synapse-isolation.language":` + quote(v) + `}` }
	d, err := parseDeclared(lang(`{"source":"main.c","compile":["gcc-12","-o","main","main.c"],"run":["./main"]}`))
	assert.NilError(t, err)
	assert.DeepEqual(t, d.exec, []string{"./main"})
	assert.DeepEqual(t, d.compile, []string{"gcc-12", "-o", "main", "main.c"})
	assert.Equal(t, d.source, "main.c")
	d, err = parseDeclared(lang(`{"source":"main.py","run":["python3","main.py"]}`))
	assert.NilError(t, err)
	assert.Check(t, d.compile == nil)
	for labels, want := range map[string]string{
		lang(`["gcc"]`): `must be a JSON object of "source", "compile" and "run"`,
		lang(`{"source":"main.c","run":["./main"],"flags":1}`):                          `unknown field "flags"`,
		lang(`{"source":"main.c","compile":["gcc"]}`):                                   "run: must name 1 to 16 arguments",
		lang(`{"source":"a/main.c","run":["./main"]}`):                                  "source: ",
		lang(`{"source":"main.c","compile":["gcc",""],"run":["./main"]}`):               "compile: each argument must be 1 to 256 bytes",
		lang(`{"source":"main.c","run":["python3","-c","print(1)"]}`):                   "python3 -c runs the code given to -c",
		`{"io.synapse-isolation.exec":"[\"sh\"]","io.synapse-isolation.language":"{}"}`: "an image declares one",
	} {
		_, err := parseDeclared(labels)
		assert.ErrorContains(t, err, want, labels)
	}
}

// quote is s as a JSON string.
func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

// TestRunUsesTheDeclaredInterpreter: without Exec, the image's label
// decides; its argv carries --exec and the result names it; Exec still
// overrides, and an image without the label runs Starlark.
func TestRunUsesTheDeclaredInterpreter(t *testing.T) {
	t.Parallel()
	o, state := fake(t, "python-label")
	o.Image = pythonImage
	// This process may have read the label already (go test -count=2):
	// the count below is of this test's reads.
	interpreters.Delete(pythonImage)
	cache := t.TempDir()
	o.Engine.Env = append(o.Engine.Env, "XDG_CACHE_HOME="+cache)
	res, err := Run(context.Background(), Request{Source: "import sys"}, o)
	assert.NilError(t, err)
	assert.Equal(t, res.Interpreter, "python3 -")
	run := lastRun(state)
	assert.DeepEqual(t, run[len(run)-3:], []string{"--exec", "python3", "-"})
	argv, err := o.Argv(time.Unix(0, 0))
	assert.NilError(t, err)
	assert.DeepEqual(t, argv[len(argv)-3:], []string{"--exec", "python3", "-"})
	inspects, calls := 0, len(fakedocker.Calls(state))
	for _, c := range fakedocker.Calls(state) {
		if c[0] == "image" {
			inspects++
		}
	}
	assert.Equal(t, inspects, 1, "the label is read once per image ID")

	// Another process finds it in the cache directory, checked as a label
	// read from the engine would be.
	interpreters.Delete(pythonImage)
	argv, err = o.Argv(time.Unix(0, 0))
	assert.NilError(t, err)
	assert.DeepEqual(t, argv[len(argv)-3:], []string{"--exec", "python3", "-"})
	assert.Equal(t, len(fakedocker.Calls(state)), calls, "no inspect: the cache file answered")
	interpreters.Delete(pythonImage)
	path := filepath.Join(cache, cacheDirName, "exec-"+strings.Repeat("1", 64))
	// A damaged file is not the image's word: the engine is asked again
	// and the file kept anew, never a refusal that sticks to the image.
	assert.NilError(t, os.WriteFile(path, []byte(`{"io.synapse-isolation.exec":"[]"}`), 0o600))
	argv, err = o.Argv(time.Unix(0, 0))
	assert.NilError(t, err)
	assert.DeepEqual(t, argv[len(argv)-3:], []string{"--exec", "python3", "-"})
	assert.Equal(t, len(fakedocker.Calls(state)), calls+1, "the engine was asked")
	kept, err := os.ReadFile(path)
	assert.NilError(t, err)
	assert.Equal(t, string(kept), `{"io.synapse-isolation.exec":"[\"python3\",\"-\"]"}`)
	assert.NilError(t, os.Remove(path))

	o.Exec = []string{"cat"}
	res, err = Run(context.Background(), Request{Source: "x"}, o)
	assert.NilError(t, err)
	assert.Equal(t, res.Interpreter, "cat")

	res, _, err = runFake(t, "ok")
	assert.NilError(t, err)
	assert.Equal(t, res.Interpreter, "starlark")
}

// TestBadExecLabelIsRefused: a label that is not a command line is the
// sandbox's failure, before any container; never a fallback to Starlark.
func TestBadExecLabelIsRefused(t *testing.T) {
	t.Parallel()
	o, state := fake(t, "bad-label")
	o.Image = badImage
	o.Engine.Env = append(o.Engine.Env, "XDG_CACHE_HOME="+t.TempDir())
	res, err := Run(context.Background(), Request{Source: "1+2"}, o)
	assert.Equal(t, res.Verdict, SandboxFailure, "%v", err)
	assert.ErrorContains(t, err, "label io.synapse-isolation.exec: must be a JSON array of strings")
	assert.Check(t, lastRun(state) == nil, "a container was started")
	_, err = o.Argv(time.Unix(0, 0))
	assert.ErrorContains(t, err, "must be a JSON array of strings")
	_, err = NewPool(context.Background(), PoolOptions{Run: o})
	assert.ErrorContains(t, err, "must be a JSON array of strings")
	assert.Check(t, is.Nil(lastRun(state)))
}

// lastRun is the fake's last `docker run` argv, nil if none.
func lastRun(state string) []string {
	calls := fakedocker.Calls(state)
	for j := len(calls) - 1; j >= 0; j-- {
		if calls[j][0] == "run" {
			return calls[j]
		}
	}
	return nil
}
