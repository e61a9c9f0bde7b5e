package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
)

// What the interactor tests share: a program run against an interactor,
// and its result as they read it.

// interactedResult is what the interactor tests read of a result.
type interactedResult struct {
	Verdict    string `json:"verdict"`
	ExitCode   int    `json:"exit_code"`
	RunID      string `json:"run_id"`
	Error      *struct{ Type, Message string }
	Interactor *struct {
		RunID   string `json:"run_id"`
		Image   string `json:"image"`
		Verdict string `json:"verdict"`
		Error   *struct{ Type, Message string }
		Compile *struct {
			Error *struct{ Type, Message string }
		} `json:"compile"`
		DurationMS int64 `json:"duration_ms"`
	} `json:"interactor"`
	Tests []interactedTest `json:"tests"`
}

// interactedTest is a test of an interactedResult: the program's side,
// and in Interactor the interactor's.
type interactedTest struct {
	Name        string `json:"name"`
	Verdict     string `json:"verdict"`
	Output      string `json:"output"`
	OutputBytes int64  `json:"output_bytes"`
	TimeLimitMS int64  `json:"time_limit_ms"`
	Error       *struct{ Type, Message string }
	Interactor  *struct {
		ExitCode    *int   `json:"exit_code"`
		Message     string `json:"message"`
		WallMS      int64  `json:"wall_ms"`
		Error       *struct{ Type, Message string }
		Output      string `json:"output"`
		OutputBytes int64  `json:"output_bytes"`
		EndedFirst  string `json:"ended_first"`
	} `json:"interactor"`
}

// interactSrc is the text of testdata/interact/NAME.
func interactSrc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "interact", name))
	assert.NilError(t, err)
	return string(b)
}

// interacted runs src (on image, its file named file) over dir's tests
// against the interactor interactor on interactorImage, and checks that
// neither run left a container behind.
func interacted(t *testing.T, image, file, src, dir, interactorImage, interactorFile, interactor string, flags ...string) (toolResult, interactedResult) {
	t.Helper()
	work := t.TempDir()
	prog, inter := filepath.Join(work, file), filepath.Join(work, interactorFile)
	assert.NilError(t, os.WriteFile(prog, []byte(src), 0o644))
	assert.NilError(t, os.WriteFile(inter, []byte(interactor), 0o644))
	args := append([]string{"run", "--image", image, "--file", prog, "--tests", dir, "--interactor", inter, "--interactor-image", interactorImage}, flags...)
	r := tool(t, nil, "", args...)
	var res interactedResult
	assert.NilError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout+r.stderr)
	assertRunGone(t, res.RunID)
	assert.Assert(t, res.Interactor != nil, r.stdout)
	assertRunGone(t, res.Interactor.RunID)
	return r, res
}

// testsByName are res's tests, by name; each has its interactor's part.
func testsByName(t *testing.T, r toolResult, res interactedResult) map[string]interactedTest {
	t.Helper()
	m := map[string]interactedTest{}
	for _, tc := range res.Tests {
		assert.Assert(t, tc.Interactor != nil, "test %q: %s", tc.Name, r.stdout)
		m[tc.Name] = tc
	}
	return m
}

// testNamed is res's test of that name, which must be there.
func testNamed(t *testing.T, r toolResult, res interactedResult, name string) interactedTest {
	t.Helper()
	tc, ok := testsByName(t, r, res)[name]
	assert.Assert(t, ok, "no test %q: %s", name, r.stdout)
	return tc
}

// verdictsOfInteracted are res's tests' verdicts, by name.
func verdictsOfInteracted(res interactedResult) map[string]string {
	m := map[string]string{}
	for _, tc := range res.Tests {
		m[tc.Name] = tc.Verdict
	}
	return m
}

// played is interacted for the program testdata/interact/FILE on image
// against the game's Python interactor.
func played(t *testing.T, image, file, dir string, flags ...string) (toolResult, interactedResult) {
	t.Helper()
	return interacted(t, image, file, interactSrc(t, file), dir, pythonImage, "interactor.py", interactSrc(t, "interactor.py"), flags...)
}
