package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestBatchOutputDirsNeverMeet: one batch line cannot take another's
// --output-dir directory. An id spelled line-1 is not line 1's directory
// (its files go to line-2, its own line's), with --force too; an id that
// differs from an earlier one only in case, one directory where the file
// system folds case, is refused before it runs, naming both lines.
func TestBatchOutputDirsNeverMeet(t *testing.T) {
	needEngine(t)
	t.Parallel()
	dir := t.TempDir()
	line := func(id any, text string) string {
		m := map[string]any{"source": "open('out.txt', 'w').write(" + `"` + text + `"` + ")\n", "collect": []string{"out.txt"}}
		if id != nil {
			m["id"] = id
		}
		return mustJSON(t, m)
	}
	input := strings.Join([]string{line(nil, "one"), line("line-1", "two"), line("Data", "three"), line("data", "four")}, "\n") + "\n"
	b := tool(t, nil, input, "batch", "--image", pythonImage, "--timeout", "60s", "--ordered", "--output-dir", dir, "--force", "--", "python3", "-")
	assert.Check(t, is.Equal(b.code, 2), b.stdout+b.stderr)
	var verdicts, messages []string
	for _, l := range strings.Split(strings.TrimSpace(b.stdout), "\n") {
		var r struct {
			Verdict string `json:"verdict"`
			Error   *struct{ Message string }
		}
		assert.NilError(t, json.Unmarshal([]byte(l), &r), l)
		verdicts = append(verdicts, r.Verdict)
		if r.Error != nil {
			messages = append(messages, r.Error.Message)
		}
	}
	assert.Check(t, is.DeepEqual(verdicts, []string{"ok", "ok", "ok", "rejected"}), b.stdout)
	assert.Check(t, is.DeepEqual(messages, []string{
		`line 4: --output-dir: its files would go to "data", line 3's directory (ids that differ only in case share one on some file systems)`,
	}), b.stdout)
	for sub, want := range map[string]string{"line-1": "one", "line-2": "two", "Data": "three"} {
		got, err := os.ReadFile(filepath.Join(dir, sub, "out.txt"))
		assert.Check(t, err == nil && string(got) == want, "%s/out.txt: %q, %v", sub, got, err)
	}
	entries, err := os.ReadDir(dir)
	assert.NilError(t, err)
	assert.Check(t, is.Len(entries, 3), "%v", entries)
}

// TestCollectedNamesEscaped: file names a program chose reach a person's
// terminal escaped, never as control sequences: C1's CSI and OSC, and a
// bidirectional override that disguises a name; the files keep their
// names on disk and in the JSON.
func TestCollectedNamesEscaped(t *testing.T) {
	needEngine(t)
	t.Parallel()
	out := t.TempDir()
	src := "for n in ['a\\x9b2Jred.txt', 'b\\x9d0;title\\x9c.txt', 'doc\\u202etxt.sh.txt']:\n    open(n, 'w').write('x')\n"
	r := py(t, nil, src, "--collect", "*.txt", "--output-dir", out)
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	for _, raw := range []string{"\u009b", "\u009d", "\u009c", "\u202e", "\x1b"} {
		assert.Check(t, !strings.Contains(r.stderr, raw), "stderr holds %q raw: %q", raw, r.stderr)
	}
	for _, want := range []string{`wrote a\x9b2Jred.txt (1 bytes)`, `wrote b\x9d0;title\x9c.txt (1 bytes)`, `wrote doc\u202etxt.sh.txt (1 bytes)`} {
		assert.Check(t, is.Contains(r.stderr, want))
	}
	files := filesOf(t, r.stdout)
	assert.Check(t, is.Len(files, 3))
	_, err := os.Stat(filepath.Join(out, "doc\u202etxt.sh.txt"))
	assert.Check(t, err)

	// --format text lists them on stderr, escaped too.
	r = py(t, nil, src, "--collect", "*.txt", "--format", "text")
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	assert.Check(t, is.Contains(r.stderr, `file doc\u202etxt.sh.txt: 1 bytes`), r.stderr)
	assert.Check(t, !strings.Contains(r.stderr, "\u202e"), r.stderr)
}
