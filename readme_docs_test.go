package main

import (
	"os"
	"regexp"
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
		"`zsh` and `fish` (their completion scripts are run in them) and `openssh-server`",
		"`scripts/test.sh` installs those five with `apt-get` when they are missing",
		"runs this recipe against the real engine; it needs `jq`",
		// TestBatchFailFastWithParallel checks the behaviour.
		"the requests already running then finish and are reported",
		"no request starts after it",
		// TestVersionWithoutVCS checks the behaviour.
		`"unknown" in the text form`,
	} {
		assert.Check(t, is.Contains(readme, want))
	}
	// Every package scripts/test.sh installs is named in the set-up.
	script, err := os.ReadFile("scripts/test.sh")
	assert.NilError(t, err)
	m := regexp.MustCompile(`(?m)^for pair in (.*); do$`).FindSubmatch(script)
	assert.Assert(t, m != nil, "scripts/test.sh lists no packages")
	setup, _, _ := strings.Cut(readme, "## Run untrusted code")
	for _, pair := range strings.Fields(string(m[1])) {
		pkg, _, _ := strings.Cut(pair, ":")
		assert.Check(t, is.Contains(setup, "`"+pkg+"`"), "the README's set-up does not name %s", pkg)
	}
}
