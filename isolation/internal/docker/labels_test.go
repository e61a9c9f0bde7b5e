package docker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
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
	assert.DeepEqual(t, d.Exec, []string{"python3", "-"})
	assert.DeepEqual(t, d.Preload, []string{"numpy", "matplotlib.pyplot"})
	d, err = parseDeclared(`{` + py + `}`)
	assert.NilError(t, err)
	assert.Check(t, d.Preload == nil)
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
	assert.DeepEqual(t, d.Exec, []string{"./main"})
	assert.DeepEqual(t, d.Compile, []string{"gcc-12", "-o", "main", "main.c"})
	assert.Equal(t, d.Source, "main.c")
	d, err = parseDeclared(lang(`{"source":"main.py","run":["python3","main.py"]}`))
	assert.NilError(t, err)
	assert.Check(t, d.Compile == nil)
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

// TestParseTimeFactorLabel: an interpreter's or a language's image may
// declare a time factor from 1 to 10, kept with the rest of what it
// declares; Starlark's may not, and a malformed one is the image's fault.
func TestParseTimeFactorLabel(t *testing.T) {
	t.Parallel()
	java := `"io.synapse-isolation.language":"{\"source\":\"Main.java\",\"compile\":[\"javac\",\"Main.java\"],\"run\":[\"java\",\"Main\"]}"`
	d, err := parseDeclared(`{` + java + `,"io.synapse-isolation.time-factor":"2"}`)
	assert.NilError(t, err)
	assert.Equal(t, d.TimeFactor, 2.0)
	d, err = parseDeclared(`{"io.synapse-isolation.exec":"[\"python3\",\"-\"]","io.synapse-isolation.time-factor":"1.5"}`)
	assert.NilError(t, err)
	assert.Equal(t, d.TimeFactor, 1.5)
	d, err = parseDeclared(`{` + java + `}`)
	assert.NilError(t, err)
	assert.Equal(t, d.TimeFactor, 0.0, "none declared")
	for _, v := range []string{"0", "0.5", "11", "two", "0x2", "1.125", "", "NaN", "1_0"} {
		_, err := parseDeclared(`{` + java + `,"io.synapse-isolation.time-factor":` + quote(v) + `}`)
		assert.ErrorContains(t, err, "label io.synapse-isolation.time-factor: must be a number from 1 to 10", v)
	}
	_, err = parseDeclared(`{"io.synapse-isolation.time-factor":"2"}`)
	assert.ErrorContains(t, err, "for an interpreter or a language, not Starlark")

	cache := t.TempDir()
	env := []string{"HOME=/nonexistent", "XDG_CACHE_HOME=" + cache}
	assert.NilError(t, os.Mkdir(filepath.Join(cache, cacheDirName), 0o700))
	image := "sha256:" + strings.Repeat("c", 64)
	want := Declared{Exec: []string{"java", "Main"}, Source: "Main.java", Compile: []string{"javac", "Main.java"}, TimeFactor: 2.5}
	Keep(env, image, want)
	got, cached := readExecCache(env, image)
	assert.Assert(t, cached)
	assert.DeepEqual(t, got, want)
}
