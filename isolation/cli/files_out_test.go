package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
)

// TestLineDirsNeverMeet: an id spelled as a line's directory, in any
// case, is not a directory name, so no line takes another's; ids that
// differ only in case (one directory where the file system folds case)
// are a second claim, refused naming both lines.
func TestLineDirsNeverMeet(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		line int
		id   string
		want string
	}{
		{1, `null`, "line-1"},
		{2, `"line-1"`, "line-2"},
		{3, `"LINE-1"`, "line-3"},
		{4, `"Line-0004"`, "line-4"},
		{5, `"line-1a"`, "line-1a"},
		{6, `"a/b"`, "line-6"},
		{7, `7`, "line-7"},
		{8, `"results"`, "results"},
	} {
		assert.Check(t, is.Equal(lineDir(c.line, json.RawMessage(c.id)), c.want), c.id)
	}

	d := lineDirs{}
	assert.NilError(t, d.claim(1, json.RawMessage(`null`)))
	assert.NilError(t, d.claim(2, json.RawMessage(`"line-1"`)))
	assert.NilError(t, d.claim(3, json.RawMessage(`"Data"`)))
	err := d.claim(4, json.RawMessage(`"dATA"`))
	assert.Check(t, is.Error(err, `line 4: --output-dir: its files would go to "dATA", line 3's directory (ids that differ only in case share one on some file systems)`))
	assert.NilError(t, d.claim(5, json.RawMessage(`"sx"`)))
	assert.Check(t, is.ErrorContains(d.claim(6, json.RawMessage(`"\u017fx"`)), "line 6: --output-dir"), "ſx folds to sx")
}

// TestBatchOutputDirClaimedBeforeTheLineRuns: a line whose directory an
// earlier line took is rejected, naming both, and never runs.
func TestBatchOutputDirClaimedBeforeTheLineRuns(t *testing.T) {
	t.Parallel()
	input := `{"id": "Data", "source": "ok", "collect": ["x"]}` + "\n" +
		`{"id": "line-1", "source": "ok", "collect": ["x"]}` + "\n" +
		`{"id": "data", "source": "ok", "collect": ["x"]}` + "\n"
	code, results, errOut, state := batchLines(t, input, "--ordered", "--output-dir", t.TempDir(), "--", "python3", "-")
	assert.Equal(t, code, 2, errOut)
	assert.Check(t, is.DeepEqual(field(results, "verdict"), []any{"ok", "ok", "rejected"}), fmt.Sprint(results))
	assert.Check(t, is.Equal(errorMessage(results[2]),
		`line 3: --output-dir: its files would go to "data", line 1's directory (ids that differ only in case share one on some file systems)`))
	assert.Check(t, is.Equal(strings.Count(fakedocker.Stdin(state), "\n"), 2), "a refused line ran")
}

// TestWriteFilesRefusals: a file already in the directory is the
// operator's error (a rejection, exit 2), not the engine's; names a
// program chose are escaped in the line a person reads.
func TestWriteFilesRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	res := isolation.Result{Verdict: protocol.OK, Files: map[string]protocol.File{
		"a\u009b31mred":   {Data: []byte("x"), Bytes: 1},
		"doc\u202etxt.sh": {Data: []byte("y"), Bytes: 1},
	}}
	var said bytes.Buffer
	assert.NilError(t, writeFiles(&said, dir, false, res))
	assert.Check(t, is.Equal(said.String(),
		`synapse-isolation: wrote a\x9b31mred (1 bytes) into `+dir+"\n"+
			`synapse-isolation: wrote doc\u202etxt.sh (1 bytes) into `+dir+"\n"))
	got, err := os.ReadFile(filepath.Join(dir, "a\u009b31mred"))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(got), "x"), "the file keeps its name and bytes")

	err = writeFiles(&said, dir, false, res)
	assert.Check(t, is.Equal(exitCode(err), 2), "%v", err)
	assert.Check(t, is.ErrorContains(err, "exists (--force replaces it)"))
	assert.NilError(t, writeFiles(&said, dir, true, res))
}

// TestEscapeControl: C0, DEL and C1 controls, the bidirectional controls
// and separators, and bytes that are not UTF-8 are escaped; newline, tab
// and every other character stay; escaping twice changes nothing.
func TestEscapeControl(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain é ✓\n\tend":         "plain é ✓\n\tend",
		"\x1b]0;title\x07":         `\x1b]0;title\x07`,
		"\u009b2J\u009d8;;x\u009c": `\x9b2J\x9d8;;x\x9c`,
		"a\u202eb\u2066c\u200fd":   `a\u202eb\u2066c\u200fd`,
		"\u061c\u2028\u2029\ufeff": `\u061c\u2028\u2029\ufeff`,
		"bad \xff\xc2 bytes \x9b[": `bad \xff\xc2 bytes \x9b[`,
		"\r\x7f":                   `\x0d\x7f`,
	} {
		got := escapeControl(in)
		assert.Check(t, is.Equal(got, want), "%q", in)
		assert.Check(t, is.Equal(escapeControl(got), got), "escaping %q twice", in)
	}
	assert.Check(t, is.Equal(oneLine("a\nb\u202e"), `a\nb\u202e`))
}
