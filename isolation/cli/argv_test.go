package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
)

func TestArgvFormatsAgree(t *testing.T) {
	t.Parallel()
	argv := func(format string) []string {
		return []string{"argv", "--image", testImage, "--name", "synapse-iso-test", "--memory", "1g", "--runtime", "runsc",
			"--at", "1800000000", "--format", format, "--", "python3", "-", "it's \"quoted\" $HOME `x`\n\ttab"}
	}
	_, lines, _ := runCLI(t, "", argv("lines")...)
	_, js, _ := runCLI(t, "", argv("json")...)
	code, shell, _ := runCLI(t, "", argv("shell")...)
	assert.Equal(t, code, 0)

	var want []string
	assert.NilError(t, json.Unmarshal([]byte(js), &want))
	assert.Equal(t, want[len(want)-1], "it's \"quoted\" $HOME `x`\n\ttab")
	assert.Assert(t, is.Contains(want, "--memory-swap"))
	// lines is the JSON argv joined by newlines (ambiguous only for arguments that contain one).
	assert.Equal(t, lines, strings.Join(want, "\n")+"\n")

	// The shell form round-trips through a real shell, NUL-separated so
	// arguments with newlines compare exactly.
	out, err := exec.Command("sh", "-c", `printf "%s\0" `+strings.TrimSuffix(shell, "\n")).Output()
	assert.NilError(t, err)
	assert.DeepEqual(t, strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00"), want)
}

func TestArgvDefaultsGolden(t *testing.T) {
	t.Parallel()
	args := []string{"argv", "--image", testImage, "--name", "synapse-iso-test", "--at", "1800000000", "--format", "lines"}
	env := fakeDockerOnPath(t, "ok")
	code, out, _ := runCLIEnv(t, env, "", args...)
	assert.Equal(t, code, 0)
	// The golden file shows the user's cache dir as $CACHE.
	cache, err := os.UserCacheDir()
	assert.NilError(t, err)
	golden.Assert(t, strings.ReplaceAll(out, cache, "$CACHE"), "argv-defaults.golden")
	// Pinned: the same flags print the same argv, byte for byte.
	_, again, _ := runCLIEnv(t, env, "", args...)
	assert.Equal(t, again, out)
	// Without --at the clock and a fresh run id decide.
	_, free, _ := runCLIEnv(t, env, "", args[:5]...)
	assert.Assert(t, free != out)
}

func TestAuditCommand(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI(t, "", "audit", "--", "docker", "run", "--net=host", "-e", "TOKEN", testImage)
	assert.Equal(t, code, 1)
	assert.Assert(t, is.Contains(out, "VIOLATED  no network             --network host, want none"))
	assert.Assert(t, is.Contains(out, "VIOLATED  no host environment    --env TOKEN"))

	code, out, _ = runCLI(t, "", "audit", "--format", "json", "--", "docker", "run", "--privileged", "--init", testImage)
	assert.Equal(t, code, 1)
	assert.Equal(t, strings.Count(out, "\n"), 1, "one compact line")
	var rep struct {
		Compliant bool `json:"compliant"`
		Findings  []struct{ ID, Boundary, Status string }
	}
	assert.NilError(t, json.Unmarshal([]byte(out), &rep))
	assert.Assert(t, !rep.Compliant)
	statuses := map[string]string{}
	for _, f := range rep.Findings {
		statuses[f.ID] = f.Status
	}
	assert.Equal(t, statuses["privileged"], "violated")
	assert.Equal(t, statuses["entrypoint"], "violated", "--init replaces the runner as PID 1")

	// Not a docker run argv at all: unreadable (2), not a finding.
	for _, tc := range []struct {
		stdin string
		args  []string
	}{
		{"", []string{"audit", "--", "ls", "-l"}},
		{"", []string{"audit", "--", "docker", "ps"}},
		{"", []string{"audit"}},
		{"not json", []string{"audit"}},
		{`{"a":1}`, []string{"audit"}},
		{`[]`, []string{"audit"}},
		{`[1,2]`, []string{"audit"}},
		{"docker run $IMAGE", []string{"audit"}},
		{"docker run x > out", []string{"audit"}},
		{"docker run `id`", []string{"audit"}},
		{"docker run *", []string{"audit"}},
	} {
		code, out, errOut := runCLI(t, tc.stdin, tc.args...)
		assert.Check(t, is.Equal(code, 2), "%q %q", tc.stdin, tc.args)
		assert.Check(t, is.Equal(out, ""), "%q", tc.stdin)
		assert.Check(t, is.Equal(strings.Count(errOut, "\n"), 1), "%q: %q", tc.stdin, errOut)
		// With --format json, one JSON error object on stdout too.
		code, out, _ = runCLI(t, tc.stdin, append([]string{"audit", "--format", "json"}, tc.args[1:]...)...)
		assert.Check(t, is.Equal(code, 2), "%q %q", tc.stdin, tc.args)
		var obj struct {
			Compliant *bool
			Error     struct{ Type, Message string }
		}
		assert.Check(t, json.Unmarshal([]byte(out), &obj), "%q: %q", tc.stdin, out)
		assert.Check(t, obj.Compliant != nil && !*obj.Compliant, "%q", out)
		assert.Check(t, is.Equal(obj.Error.Type, "rejected"), "%q", out)
		assert.Check(t, obj.Error.Message != "", "%q", out)
	}
	// A bad flag value is refused while the flags are parsed, as for every
	// command: before any format applies, so on stderr alone.
	code, out, errOut := runCLI(t, "docker run x", "audit", "--format", "json", "--input", "yaml")
	assert.Check(t, is.Equal(code, 2))
	assert.Check(t, is.Equal(out, ""))
	assert.Check(t, is.Equal(errOut, "synapse-isolation: --input: must be auto, shell, json or lines (got \"yaml\")\n"))
}

// TestArgvAuditRoundTrip: every form argv prints, piped to audit, is compliant.
func TestArgvAuditRoundTrip(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"shell", "json", "lines"} {
		for _, extra := range [][]string{nil, {"--", "sh", "-", "echo 'it''s' \"$HOME\" `id` *"}} {
			t.Run(format+strings.Join(extra, " "), func(t *testing.T) {
				args := append([]string{"argv", "--image", testImage, "--memory", "1GiB", "--runtime", "runsc", "--format", format}, extra...)
				code, printed, _ := runCLIEnv(t, fakeDockerOnPath(t, "ok"), "", args...)
				assert.Equal(t, code, 0)
				code, out, errOut := runCLI(t, printed, "audit", "--allow-runtime", "runsc")
				assert.Equal(t, code, 0, "%s\n%s%s", printed, out, errOut)
				assert.Assert(t, strings.HasSuffix(out, "\ncompliant\n"))
				code, _, errOut = runCLI(t, printed, "audit", "--input", format, "--allow-runtime", "runsc")
				assert.Equal(t, code, 0, errOut)
				// gVisor is a column of the boundary table: allowed as it is.
				code, _, errOut = runCLI(t, printed, "audit")
				assert.Equal(t, code, 0, errOut)
				// Another runtime enforces every boundary: not allowed, it is a finding.
				code, out, _ = runCLI(t, strings.ReplaceAll(printed, "runsc", "kata"), "audit")
				assert.Equal(t, code, 1)
				assert.Assert(t, is.Contains(out, "VIOLATED  runtime"))
			})
		}
	}
}

// TestAuditFromATerminalPrintsUsage opens a pseudo-terminal as stdin:
// audit must not sit waiting for input nobody is going to type.
func TestAuditFromATerminalPrintsUsage(t *testing.T) {
	t.Parallel()
	_, tty := openPTY(t)
	assert.Assert(t, isTerminal(tty))
	assert.Assert(t, !isTerminal(strings.NewReader("")))

	var stdout, stderr bytes.Buffer
	done := make(chan int)
	go func() {
		done <- run(context.Background(), []string{"synapse-isolation", "audit"}, os.Environ(), tty, &stdout, &stderr)
	}()
	select {
	case code := <-done:
		assert.Equal(t, code, 2)
		assert.Assert(t, is.Contains(stdout.String(), "USAGE:"))
		assert.Assert(t, is.Contains(stderr.String(), "stdin is a terminal"))
	case <-time.After(5 * time.Second):
		t.Fatal("audit waited on a terminal")
	}
}

// TestArgvIsWhatRunExecutes runs `run` against the fake docker, which logs
// the argv it received, and compares it with `argv` for the same flags.
func TestArgvIsWhatRunExecutes(t *testing.T) {
	t.Parallel()
	self, state, env := useFakeDocker(t, "ok")
	for _, flags := range [][]string{
		{"--name", "synapse-iso-cmp1"},
		{"--name", "synapse-iso-cmp2", "--memory", "1g", "--timeout", "30s", "--context", "default", "--runtime", "runc"},
		{"--name", "synapse-iso-cmp3", "--", "python3", "-"},
	} {
		common := append([]string{"--image", testImage, "--cli", self}, flags...)
		code, out, errOut := runCLIEnv(t, env, "", append([]string{"run", "--code", "1+2"}, common...)...)
		assert.Equal(t, code, 0, errOut)
		assert.Assert(t, is.Contains(out, `"verdict":"ok"`))
		calls := fakedocker.Calls(state)
		got := calls[len(calls)-1]

		_, printed, _ := runCLIEnv(t, env, "", append([]string{"argv", "--format", "json"}, common...)...)
		var want []string
		assert.NilError(t, json.Unmarshal([]byte(printed), &want))
		assert.Equal(t, want[0], self)
		assert.DeepEqual(t, maskDeadline(got), maskDeadline(want[1:]))
	}
}

// maskDeadline masks what differs between two renders of the same flags:
// the deadline label (the clock) and the run-id label (random per run).
func maskDeadline(argv []string) []string {
	out := slices.Clone(argv)
	for i, a := range out {
		for _, key := range []string{"io.synapse-isolation.deadline=", "io.synapse-isolation.run-id="} {
			if strings.HasPrefix(a, key) {
				out[i] = key + "<masked>"
			}
		}
	}
	return out
}

// TestShellFormatRoundTripsThroughPrintf is the auditor's check, to the letter.
func TestShellFormatRoundTripsThroughPrintf(t *testing.T) {
	t.Parallel()
	args := []string{"--image", testImage, "--name", "synapse-iso-printf", "--", "sh", "-", "echo 'a b' \"$x\""}
	_, js, _ := runCLI(t, "", append([]string{"argv", "--format", "json"}, args...)...)
	code, shell, _ := runCLI(t, "", append([]string{"argv", "--format", "shell"}, args...)...)
	assert.Equal(t, code, 0)
	var want []string
	assert.NilError(t, json.Unmarshal([]byte(js), &want))
	out, err := exec.Command("sh", "-c", `printf "%s\n" `+strings.TrimSuffix(shell, "\n")).Output()
	assert.NilError(t, err)
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	// The two calls render different deadlines only if a second ticked between them.
	assert.DeepEqual(t, maskDeadline(got), maskDeadline(want))
}

// TestAuditRefusesOtherCommands: only the docker client (or the one named
// with --cli) followed by run is audited; anything else is exit 2, and
// --format json prints one JSON error object for it.
func TestAuditRefusesOtherCommands(t *testing.T) {
	t.Parallel()
	for _, argv := range [][]string{{"ls", "-l"}, {"kubectl", "run", "x", "--image=y"}} {
		code, out, errOut := runCLI(t, "", append([]string{"audit", "--"}, argv...)...)
		assert.Check(t, is.Equal(code, 2), "%q", argv)
		assert.Check(t, is.Equal(out, ""))
		assert.Check(t, is.Contains(errOut, "not a docker run command: the first word is \""+argv[0]+"\""))
		code, out, _ = runCLI(t, "", append([]string{"audit", "--format", "json", "--"}, argv...)...)
		assert.Check(t, is.Equal(code, 2))
		var obj struct {
			Compliant bool
			Error     struct{ Type, Message string }
		}
		assert.Check(t, json.Unmarshal([]byte(out), &obj), out)
		assert.Check(t, is.Equal(strings.Count(out, "\n"), 1))
		assert.Check(t, is.Equal(obj.Error.Type, "rejected"))
		assert.Check(t, is.Contains(obj.Error.Message, "not a docker run command"))
	}
	code, _, _ := runCLI(t, "", "audit", "--cli", "podman", "--", "podman", "run", "--rm", "x")
	assert.Check(t, is.Equal(code, 1), "podman named with --cli is audited")
}
