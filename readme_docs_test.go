package main

import (
	"os"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestReadmeSaysWhatHappens holds the README to what the tool does where
// a test of behaviour alone cannot: what the tests need, and what
// --fail-fast does with requests already running.
func TestReadmeSaysWhatHappens(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("README.md")
	assert.NilError(t, err)
	readme := strings.Join(strings.Fields(string(b)), " ")
	for _, want := range []string{
		"What the tests need beyond Go and the engine: root,",
		"(`dockerd`, which comes with Docker Engine) on a bridge it creates with `ip` (iproute2)",
		"`runsc`, `jq` (the batch Makefile recipe below uses it)",
		"`scripts/test.sh` installs those four with `apt-get` when they are missing",
		"runs this recipe against the real engine; it needs `jq`",
		// TestBatchFailFastWithParallel checks the behaviour.
		"the requests already running then finish and are reported",
		"no request starts after it",
		// TestVersionWithoutVCS checks the behaviour.
		`"unknown" in the text form`,
	} {
		assert.Check(t, is.Contains(readme, want))
	}
}
