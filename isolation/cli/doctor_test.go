package cli

import (
	"bytes"
	"encoding/json"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
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

// TestDoctorTimeout: doctor --timeout bounds the selfcheck's run. Against
// a fake whose container says hello only 4 s after it started, 1.5s fails
// the selfcheck with the hint to raise it, and 60s (fifteen times the
// start) passes every check.
func TestDoctorTimeout(t *testing.T) {
	t.Parallel()
	for timeout, want := range map[string]struct {
		code   int
		detail string
	}{
		"1.5s": {exitFailedCheck, "timeout: the deadline of 1.5s passed before the sandbox was ready (no hello from the runner yet); " +
			"the program was never sent; on a slow host raise the deadline with doctor --timeout"},
		"60s": {0, ""},
	} {
		t.Run(timeout, func(t *testing.T) {
			t.Parallel()
			self, state, env := useFakeDocker(t, "slow-start")
			code, out, errOut := runCLIEnv(t, env, "", "doctor", "--image", testImage, "--cli", self, "--timeout", timeout, "--format", "json")
			assert.Equal(t, code, want.code, "%s%s", out, errOut)
			var report struct{ Checks []isolation.Check }
			assert.NilError(t, json.Unmarshal([]byte(out), &report), out)
			var failed []isolation.Check
			for _, ch := range report.Checks {
				if !ch.OK {
					failed = append(failed, ch)
				}
			}
			if want.detail == "" {
				assert.Assert(t, is.Len(failed, 0))
			} else {
				assert.Assert(t, is.Len(failed, 1), "%+v", failed)
				assert.Equal(t, failed[0].ID, "selfcheck")
				assert.Equal(t, failed[0].Detail, want.detail)
			}
			assert.Assert(t, is.Len(fakedocker.Containers(state), 0), "a container was left behind")
		})
	}
}
