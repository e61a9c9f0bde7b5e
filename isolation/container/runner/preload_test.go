package main

import (
	"encoding/json"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// preloadArgs run python3 warm: modules imported once the host's newline
// came, the program handed over with the request. These tests meet no
// deadline: theirs is far (a minute, coldArgs too), where the default
// 10 s is only a few times what starting python3 takes on a loaded
// machine (4 s was seen with every package's tests at once).
var preloadArgs = []string{"--timeout", "1m", "--idle", "30s", "--threads", "1", "--preload", "json,decimal", "--exec", "python3", "-"}

// coldArgs run python3 cold: started with the request.
var coldArgs = []string{"--timeout", "1m", "--threads", "1", "--exec", "python3", "-"}

// TestPreloadedRunsAsCold: a program run by a preloaded interpreter cannot
// tell it from a cold one by what it prints, its name, argv, directory,
// import path, stdin and globals, nor by how it fails: the same stdout,
// stderr (tracebacks without the bootstrap's frame) and exit status.
func TestPreloadedRunsAsCold(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 here")
	}
	t.Parallel()
	for name, tc := range map[string]struct {
		src, stdin string
		files      map[string]string
	}{
		"identity":  {src: "import sys, os\nprint(__name__, sys.argv[0].endswith('/work/main'), os.getcwd().endswith('/work'), sys.path[0].endswith('/work'))\nprint(sys.stdin.read())", stdin: "data in"},
		"globals":   {src: "print(sorted(k for k in globals() if not k.startswith('__')), __file__.endswith('/work/main'), __spec__)"},
		"raise":     {src: "def f():\n    return 1 / 0\nf()"},
		"syntax":    {src: "def (:\n"},
		"exit 3":    {src: "import sys; sys.exit(3)"},
		"exit text": {src: "import sys; sys.exit('bye')"},
		"helper":    {src: "import helper\nprint(helper.X)", files: map[string]string{"helper.py": "X = 42\n"}},
		"pickle":    {src: "import pickle\ndef g():\n    pass\nprint(pickle.loads(pickle.dumps(g)) is g)"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, err := json.Marshal(protocol.Request{Source: tc.src, Stdin: tc.stdin, Files: tc.files})
			assert.NilError(t, err)
			cold := runRunner(t, string(b), coldArgs...)
			warm := runRunner(t, "\n"+string(b), preloadArgs...)
			assert.Check(t, is.Equal(warm.Output, cold.Output))
			// Each run has a directory of its own; the paths in tracebacks
			// differ only by it.
			dir := regexp.MustCompile(`/[^"\n]*/work/main`)
			assert.Check(t, is.Equal(dir.ReplaceAllString(warm.Stderr, "/work/main"), dir.ReplaceAllString(cold.Stderr, "/work/main")))
			assert.Check(t, is.DeepEqual(warm.Exit, cold.Exit))
			assert.Check(t, is.DeepEqual(warm.Error, cold.Error))
			t.Logf("%s: %q %q", name, cold.Output, cold.Stderr)
		})
	}
}

// TestPreloadedImportsAhead: the declared modules are imported before the
// program runs, and only when the host said the hello passed.
func TestPreloadedImportsAhead(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 here")
	}
	t.Parallel()
	req := `{"source":"import sys; print('decimal' in sys.modules)"}`
	assert.Equal(t, runRunner(t, "\n"+req, preloadArgs...).Output, "True\n")
	assert.Equal(t, runRunner(t, req, coldArgs...).Output, "False\n")

	// Anything but a newline first is not the host's word: no program.
	r := runRunner(t, req, preloadArgs...)
	assert.Assert(t, !r.OK)
	assert.Check(t, strings.Contains(r.Error.Message, "the host's word that the hello passed: want a newline"), r.Error.Message)
}
