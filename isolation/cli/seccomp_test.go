package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/limits/seccomp"
)

// TestSeccompTableIsReadableAndComplete: no line is wider than the table's
// width, and every rule's syscalls and reason are there, word for word.
func TestSeccompTableIsReadableAndComplete(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, "", "seccomp", "--format", "table")
	assert.Equal(t, code, 0, errOut)
	for _, head := range []string{"allow       execve execveat", "errno 4094  ptrace", "errno 1     (every other syscall)"} {
		assert.Check(t, strings.Contains(out, "\n"+head), head)
	}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		assert.Check(t, len(l) <= tableWidth, "%d columns: %s", len(l), l)
	}
	words := " " + strings.Join(strings.Fields(out), " ") + " "
	for _, name := range seccomp.Allowed() {
		assert.Check(t, strings.Contains(words, " "+name+" "), name)
	}
	var p struct {
		Syscalls []struct {
			Names   []string `json:"names"`
			Comment string   `json:"comment"`
		} `json:"syscalls"`
	}
	assert.NilError(t, json.Unmarshal(seccomp.Profile(), &p))
	for _, r := range p.Syscalls {
		// The reason follows its syscalls, whole, however it was wrapped.
		rule := strings.Join(r.Names, " ")
		assert.Check(t, strings.Contains(words, " "+rule+" "), rule)
		assert.Check(t, strings.Contains(words, " "+strings.Join(strings.Fields(r.Comment), " ")+" "), r.Comment)
	}
	assert.Check(t, strings.Contains(words, " (every other syscall) "))
}

func TestWrapWords(t *testing.T) {
	t.Parallel()
	assert.DeepEqual(t, wrapWords("aa bb cc dd", 5), []string{"aa bb", "cc dd"})
	assert.DeepEqual(t, wrapWords("toolongword a", 4), []string{"toolongword", "a"})
	assert.Check(t, is.Len(wrapWords("", 10), 0))
}
