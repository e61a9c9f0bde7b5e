package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/synapse-lang/synapse-isolation/internal/fakedocker"
	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/limits"
)

func TestMain(m *testing.M) {
	fakedocker.Main() // acts as docker and exits when a test runs it as one
	os.Exit(m.Run())
}

const testImage = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// cli runs the command line in-process and returns its exit status and output.
func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append([]string{"synapse-isolation"}, args...), strings.NewReader(stdin), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestHelpGolden(t *testing.T) {
	for _, cmd := range []string{"", "run", "argv", "audit", "doctor", "gc", "eval", "version"} {
		args := []string{"--help"}
		if cmd != "" {
			args = []string{cmd, "--help"}
		}
		code, out, errOut := runCLI(t, "", args...)
		assert.Equal(t, code, 0)
		assert.Equal(t, errOut, "")
		name := "help-" + cmd
		if cmd == "" {
			name = "help"
		}
		golden.Assert(t, out, name+".golden")
	}
}

func TestBadFlagsGolden(t *testing.T) {
	cases := [][]string{
		{"bogus"},
		{"argv", "--bogus"},
		{"argv", "--image"},
		{"argv"},
		{"argv", "--image", "python:latest"},
		{"argv", "--image", "sha256:abc"},
		{"argv", "--image", strings.ToUpper(testImage)},
		{"argv", "--image", testImage, "--memory", "0"},
		{"argv", "--image", testImage, "--memory", "-1"},
		{"argv", "--image", testImage, "--memory", "63m"},
		{"argv", "--image", testImage, "--memory", "1.5g"},
		{"argv", "--image", testImage, "--timeout", "0s"},
		{"argv", "--image", testImage, "--timeout", "1h"},
		{"argv", "--image", testImage, "--timeout", "ten"},
		{"argv", "--image", testImage, "--name", "bad name"},
		{"argv", "--image", testImage, "--runtime", "-x"},
		{"argv", "--image", testImage, "--format", "yaml"},
		{"audit", "--format", "xml", "--", "docker", "run", "x"},
	}
	var all strings.Builder
	for _, args := range cases {
		code, out, errOut := runCLI(t, "", args...)
		assert.Equal(t, code, 2, "%q", args)
		assert.Equal(t, out, "", "%q", args)
		all.WriteString(strings.Join(args, " ") + "\n  " + errOut)
	}
	golden.Assert(t, all.String(), "flag-errors.golden")
}

func TestArgvFormatsAgree(t *testing.T) {
	argv := func(format string) []string {
		return []string{"argv", "--image", testImage, "--name", "synapse-iso-test", "--memory", "1g", "--runtime", "runsc",
			"--format", format, "--", "python3", "-c", "it's \"quoted\" $HOME `x`\n\ttab"}
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
	code, out, _ := runCLI(t, "", "argv", "--image", testImage, "--name", "synapse-iso-test", "--format", "lines")
	assert.Equal(t, code, 0)
	// The deadline label depends on the clock; mask its value.
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "io.synapse-isolation.deadline=") {
			lines[i] = "io.synapse-isolation.deadline=<unix seconds>"
		}
	}
	golden.Assert(t, strings.Join(lines, "\n"), "argv-defaults.golden")
}

func TestAuditCommand(t *testing.T) {
	_, argvJSON, _ := runCLI(t, "", "argv", "--image", testImage, "--format", "json")
	code, out, _ := runCLI(t, argvJSON, "audit")
	assert.Equal(t, code, 0)
	assert.Assert(t, strings.HasSuffix(out, "\ncompliant\n"), out)

	code, out, _ = runCLI(t, "", "audit", "--", "docker", "run", "--net=host", "-e", "TOKEN", testImage)
	assert.Equal(t, code, 1)
	assert.Assert(t, is.Contains(out, "VIOLATED  no network             --network host, want none"))
	assert.Assert(t, is.Contains(out, "VIOLATED  no host environment    --env TOKEN"))

	code, out, _ = runCLI(t, "", "audit", "--format", "json", "--", "docker", "run", "--privileged", testImage)
	assert.Equal(t, code, 1)
	var rep struct {
		Compliant bool `json:"compliant"`
		Findings  []struct{ Boundary, Status string }
	}
	assert.NilError(t, json.Unmarshal([]byte(out), &rep))
	assert.Assert(t, !rep.Compliant)

	for _, in := range []string{"", "not json", `{"a":1}`, `[]`, `[1,2]`} {
		code, _, errOut := runCLI(t, in, "audit")
		assert.Equal(t, code, 2, in)
		assert.Assert(t, is.Contains(errOut, "stdin:"), in)
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := runCLI(t, "", "version")
	assert.Equal(t, code, 0)
	assert.Assert(t, strings.HasPrefix(out, "synapse-isolation "), out)
	assert.Assert(t, is.Contains(out, "protocol v1"))
}

// TestArgvIsWhatRunExecutes runs `run` against the fake docker, which logs
// the argv it received, and compares it with `argv` for the same flags.
func TestArgvIsWhatRunExecutes(t *testing.T) {
	self, err := os.Executable()
	assert.NilError(t, err)
	state := t.TempDir()
	t.Setenv(fakedocker.EnvMode, "ok")
	t.Setenv(fakedocker.EnvState, state)
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	t.Setenv("GORACE", "atexit_sleep_ms=0")
	for _, flags := range [][]string{
		{"--name", "synapse-iso-cmp1"},
		{"--name", "synapse-iso-cmp2", "--memory", "1g", "--timeout", "3s", "--context", "default", "--runtime", "runc"},
		{"--name", "synapse-iso-cmp3", "--", "python3", "-"},
	} {
		common := append([]string{"--image", testImage, "--cli", self}, flags...)
		code, out, errOut := runCLI(t, "", append([]string{"run", "--code", "1+2"}, common...)...)
		assert.Equal(t, code, 0, errOut)
		assert.Assert(t, is.Contains(out, `"verdict":"ok"`))
		calls := fakedocker.Calls(state)
		got := calls[len(calls)-1]

		_, printed, _ := runCLI(t, "", append([]string{"argv", "--format", "json"}, common...)...)
		var want []string
		assert.NilError(t, json.Unmarshal([]byte(printed), &want))
		assert.Equal(t, want[0], self)
		assert.DeepEqual(t, maskDeadline(got), maskDeadline(want[1:]))
	}
}

func maskDeadline(argv []string) []string {
	out := slices.Clone(argv)
	for i, a := range out {
		if strings.HasPrefix(a, "io.synapse-isolation.deadline=") {
			out[i] = "io.synapse-isolation.deadline=<unix seconds>"
		}
	}
	return out
}

// TestShellFormatRoundTripsThroughPrintf is the auditor's check, to the letter.
func TestShellFormatRoundTripsThroughPrintf(t *testing.T) {
	args := []string{"--image", testImage, "--name", "synapse-iso-printf", "--", "sh", "-c", "echo 'a b' \"$x\""}
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

// TestRunExitCodes drives `run` through the fake docker for every verdict.
func TestRunExitCodes(t *testing.T) {
	self, err := os.Executable()
	assert.NilError(t, err)
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	t.Setenv("GORACE", "atexit_sleep_ms=0")
	for mode, want := range map[string]struct {
		code    int
		verdict string
	}{
		"ok":            {0, "ok"},
		"program-error": {1, "program_error"},
		"malformed":     {3, "sandbox_failure"},
		"nonzero-valid": {3, "sandbox_failure"},
		"hang":          {124, "timeout"},
		"exit125":       {125, "engine_failure"},
		"warning":       {125, "engine_failure"},
		"exit137-oom":   {137, "oom"},
		"exit137-kill":  {3, "sandbox_failure"},
	} {
		t.Setenv(fakedocker.EnvMode, mode)
		t.Setenv(fakedocker.EnvState, t.TempDir())
		code, out, errOut := runCLI(t, "", "run", "--image", testImage, "--cli", self, "--timeout", "500ms", "--code", "1+2")
		assert.Check(t, is.Equal(code, want.code), "%s: %s", mode, errOut)
		var res struct {
			Verdict  string `json:"verdict"`
			ExitCode int    `json:"exit_code"`
		}
		assert.Check(t, json.Unmarshal([]byte(out), &res), "%s: %s", mode, out)
		assert.Check(t, is.Equal(res.Verdict, want.verdict), mode)
		assert.Check(t, is.Equal(res.ExitCode, want.code), mode)
		assert.Check(t, (errOut == "") == (want.code <= 1), "%s: diagnostics on stderr for failures only: %q", mode, errOut)
	}
}

func TestExitCodeOfSignals(t *testing.T) {
	for sig, want := range map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143} {
		err := &isolation.InterruptedError{Err: &signalError{sig: sig}}
		assert.Equal(t, exitCode(err), want)
	}
	assert.Equal(t, exitCode(&limits.FlagError{Flag: "--memory", Msg: "x"}), 2)
	assert.Equal(t, exitCode(&isolation.OOMError{Err: os.ErrClosed}), 137)
}
