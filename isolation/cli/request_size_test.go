package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
)

// TestRequestHTMLFits: the request is encoded without HTML escaping, so a
// program of 15,000 '<' (90,013 bytes escaped) reaches the container as
// it is, within the 64 KiB bound.
func TestRequestHTMLFits(t *testing.T) {
	t.Parallel()
	self, state, env := useFakeDocker(t, "ok")
	src := strings.Repeat("<", 15000)
	path := filepath.Join(t.TempDir(), "prog.star")
	assert.NilError(t, os.WriteFile(path, []byte(src), 0o600))
	code, out, errOut := runCLIEnv(t, env, "", "run", "--image", testImage, "--cli", self, "--file", path)
	assert.Equal(t, code, 0, errOut)
	assert.Check(t, is.Contains(out, `"verdict":"ok"`))
	assert.Check(t, is.Regexp(`^\{"stop_ms":[0-9]+,"source":"`+src+`"\}\n$`, fakedocker.Stdin(state)))
}

// TestRequestTooLargeNamesTheFile: a program over the request bound from
// --file is refused before docker, naming the file and the sizes, whether
// its encoding or its own size is over.
func TestRequestTooLargeNamesTheFile(t *testing.T) {
	t.Parallel()
	self, state, env := useFakeDocker(t, "ok")
	dir := t.TempDir()
	quotes, big := filepath.Join(dir, "quotes.star"), filepath.Join(dir, "big.star")
	assert.NilError(t, os.WriteFile(quotes, []byte(strings.Repeat(`"`, 40000)), 0o600))
	assert.NilError(t, os.WriteFile(big, []byte(strings.Repeat("x", 1<<20)), 0o600))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--image", testImage, "--cli", self, "--file", quotes},
			quotes + ": request: the program is 40000 bytes, 80013 bytes encoded, over the limit of 65536"},
		{[]string{"run", "--image", testImage, "--cli", self, "--file", big},
			big + ": request: the program is 1048576 bytes, over the limit of 65536"},
		{[]string{"eval", "--file", big},
			big + ": request: the program is 1048576 bytes, over the limit of 65536"},
	} {
		code, out, errOut := runCLIEnv(t, env, "", tc.args...)
		assert.Check(t, is.Equal(code, 2), "%q", tc.args)
		assertRejectedJSON(t, out)
		assert.Check(t, is.Equal(errOut, "synapse-isolation: "+tc.want+"\n"))
	}
	// From stdin there is no file to name: the sizes alone.
	code, _, errOut := runCLIEnv(t, env, strings.Repeat(`"`, 40000), "run", "--image", testImage, "--cli", self, "--code", "-")
	assert.Check(t, is.Equal(code, 2))
	assert.Check(t, is.Equal(errOut, "synapse-isolation: request: the program is 40000 bytes, 80013 bytes encoded, over the limit of 65536\n"))
	assert.Check(t, is.Len(fakedocker.Calls(state), 0), "docker was called")
}
