package cli

import (
	"bytes"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/synapse-lang/synapse-isolation/isolation"
)

// TestDoctorSkipLine: a check that was not made prints SKIP, not PASS,
// and fails nothing; in JSON it is marked skipped.
func TestDoctorSkipLine(t *testing.T) {
	checks := []isolation.Check{
		{ID: "daemon", Name: "daemon", OK: true, Detail: "engine 27.0.0"},
		{ID: "container", Name: "container", OK: true, Skipped: true, Detail: "no container ran"},
	}
	var text, js bytes.Buffer
	assert.Assert(t, writeDoctor(&text, "text", checks))
	assert.Equal(t, text.String(), "PASS  daemon             engine 27.0.0\nSKIP  container          no container ran\n")
	assert.Assert(t, writeDoctor(&js, "json", checks))
	assert.Equal(t, js.String(), `{"ok":true,"checks":[{"id":"daemon","name":"daemon","ok":true,"detail":"engine 27.0.0"},`+
		`{"id":"container","name":"container","ok":true,"detail":"no container ran","skipped":true}]}`+"\n")
}
