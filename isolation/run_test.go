package isolation

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/docker"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/removal"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/supervisor"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
	"github.com/synapse-lang/synapse-isolation/limits"
)

func TestMain(m *testing.M) {
	if code, ok := removal.Reap(os.Args, os.Stdin); ok {
		os.Exit(code) // the reaper of a run a test started
	}
	fakedocker.Main() // acts as docker and exits when a test runs it as one
	os.Exit(m.Run())
}

var testImage = "sha256:" + strings.Repeat("0123456789abcdef", 4)

// fake returns options that run this test binary as docker in mode, and the
// fake's state directory.
func fake(t *testing.T, mode string) (Options, string) {
	t.Helper()
	state := t.TempDir()
	self, err := os.Executable()
	assert.NilError(t, err)
	env := append(os.Environ(), fakedocker.EnvMode+"="+mode, fakedocker.EnvState+"="+state,
		"DOCKER_CONFIG="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir(),
		// Under -race a binary sleeps 1s at exit by default; the fake is one.
		"GORACE=atexit_sleep_ms=0")
	// testImage declares no interpreter, kept so in the test's own cache
	// directory, so a test's docker calls are only its run's own (the
	// tests of labels use other image IDs).
	_, err = docker.SeccompFile(env)
	assert.NilError(t, err)
	docker.Keep(env, testImage, docker.Declared{})
	// The deadline is far: a test that meets it sets its own, so no other
	// answer depends on how fast a loaded machine starts the fake.
	return Options{Image: testImage, Engine: Engine{CLI: self, Env: env}, Limits: limits.Config{Timeout: time.Minute}}, state
}

// verbs are the docker commands the fake saw, in order.
func verbs(state string) []string {
	var out []string
	for _, c := range fakedocker.Calls(state) {
		out = append(out, c[0])
	}
	return out
}

// meetTimeout is the timeout of a test whose fake never answers, so the
// run meets its deadline, which must pass after the hello, while the
// program runs. The fake is this test binary, built with -race: from the
// plan to its hello takes about 0.2 s (0.13 s at best), so 5 s is 25
// times that; 1 s was not ten times, and a loaded machine once killed the
// fake at 1 s before it had even logged its run.
const meetTimeout = 5 * time.Second

// whenever calls f, in a goroutine of its own, once cond holds (looked at
// every 10 ms), or never if stop is closed first: a test acts on an event
// the fake docker leaves in its state (a call logged, a request read),
// however long the event takes, instead of after a guess at that time.
func whenever(cond func() bool, stop <-chan struct{}, f func()) {
	go func() {
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for !cond() {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
		f()
	}()
}

// requestRead reports whether a container of the fake's state read its
// request: the fake logs what it read once its stdin was closed.
func requestRead(state string) func() bool {
	return func() bool { return fakedocker.Stdin(state) != "" }
}

func runFake(t *testing.T, mode string, edit ...func(*Options)) (Result, string, error) {
	t.Helper()
	o, state := fake(t, mode)
	for _, e := range edit {
		e(&o)
	}
	res, err := Run(context.Background(), Request{Source: "1+2"}, o)
	if err != nil {
		assert.Equal(t, res.Verdict, supervisor.VerdictOf(err))
	}
	assert.Assert(t, is.Len(fakedocker.Containers(state), 0), "a container was left behind")
	return res, state, err
}

func TestRunOK(t *testing.T) {
	t.Parallel()
	res, state, err := runFake(t, "ok")
	assert.NilError(t, err)
	assert.Equal(t, res.Verdict, protocol.OK)
	assert.Equal(t, string(res.Result), "3")
	assert.Assert(t, res.Sandboxed)
	assert.Equal(t, res.Image, testImage)
	assert.Assert(t, strings.HasPrefix(res.Container, namePrefix))
	assert.Equal(t, *res.ContainerExit, 0)
	// A clean run costs one docker call: no cleanup round trips.
	assert.Equal(t, len(fakedocker.Calls(state)), 1)
}

func TestRunProgramError(t *testing.T) {
	t.Parallel()
	res, _, err := runFake(t, "program-error")
	assert.NilError(t, err)
	assert.Equal(t, res.Verdict, protocol.ProgramError)
	assert.Equal(t, res.Error.Message, "boom")
}

func TestRunEngineFailures(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"exit125", "exit126", "exit127"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			res, state, err := runFake(t, mode)
			assert.Assert(t, supervisor.VerdictOf(err) == protocol.EngineFailure, mode)
			assert.Equal(t, res.Verdict, protocol.EngineFailure)
			assert.Assert(t, is.Contains(err.Error(), "docker run exited "+mode[4:]+": docker: Error response from daemon: failure in mode "+mode))
			assert.Assert(t, slices.ContainsFunc(fakedocker.Calls(state), func(c []string) bool { return c[0] == "rm" }))
		})
	}
}

func TestRunDockerWarningFailsClosed(t *testing.T) {
	t.Parallel()
	res, _, err := runFake(t, "warning")
	assert.Equal(t, res.Verdict, protocol.EngineFailure)
	assert.ErrorContains(t, err, "docker did not apply the whole policy: WARNING: Your kernel does not support swap limit")
	assert.Assert(t, res.Result == nil, "the response of a run with a discarded limit is not used")
}

func TestRunHostileResponses(t *testing.T) {
	t.Parallel()
	for mode, want := range map[string]string{
		"two-json":      "response: trailing data after the JSON value",
		"malformed":     "response: invalid character",
		"missing":       "response: empty",
		"big-output":    "response: output and stderr are 65537 bytes, over the 65536 byte cap",
		"big-response":  "response larger than 1048576 bytes",
		"flood":         "response larger than 1048576 bytes",
		"nonzero-valid": "container exited 1 (a valid response needs exit 0)",
	} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			res, _, err := runFake(t, mode)
			assert.Check(t, supervisor.VerdictOf(err) == protocol.SandboxFailure, "%s: %v", mode, err)
			assert.Check(t, is.Equal(res.Verdict, protocol.SandboxFailure), mode)
			assert.Check(t, is.Contains(err.Error(), want), mode)
		})
	}
}

func TestRunExit137NeedsEvidence(t *testing.T) {
	t.Parallel()
	res, _, err := runFake(t, "exit137-oom")
	assert.Equal(t, res.Verdict, protocol.OOM)
	assert.ErrorContains(t, err, "daemon oom event")

	res, _, err = runFake(t, "exit137-kill")
	assert.Equal(t, res.Verdict, protocol.SandboxFailure, "%v", err)
	assert.ErrorContains(t, err, "killed (exit 137) without an OOM event")

	res, _, err = runFake(t, "exec-oom")
	assert.Equal(t, res.Verdict, protocol.OOM, "%v", err)

	// The runner outlives the program and reports the exhaustion itself.
	res, _, err = runFake(t, "runner-oom")
	assert.Equal(t, res.Verdict, protocol.OOM, "%v", err)
	assert.ErrorContains(t, err, "the program exhausted its 512m memory limit: memory exhausted: 65523712 of 67108864 bytes in use (runner guard)")

	// Without an answer from the daemon a killed command is not a program error.
	res, _, err = runFake(t, "exec-oom-events-fail")
	assert.Equal(t, res.Verdict, protocol.EngineFailure, "%v", err)
	assert.ErrorContains(t, err, "the command was killed; checking for an OOM event")
}

func TestRunnerTimeoutIsATimeoutError(t *testing.T) {
	t.Parallel()
	res, _, err := runFake(t, "runner-timeout")
	assert.Assert(t, supervisor.VerdictOf(err) == protocol.Timeout, "%v", err)
	assert.Equal(t, res.Verdict, protocol.Timeout)
	assert.Equal(t, res.Output, "", "a stopped program's partial output is discarded")
	assert.ErrorContains(t, err, "the runner stopped the program at the deadline")
}

func TestRunMissingInterpreterIsNotAProgramError(t *testing.T) {
	t.Parallel()
	res, _, err := runFake(t, "command-not-found", func(o *Options) { o.Exec = []string{"python3", "-"} })
	var ie *Error
	assert.Assert(t, errors.As(err, &ie) && ie.Verdict == protocol.CommandNotFound, "%v", err)
	assert.Equal(t, res.Verdict, protocol.CommandNotFound)
	assert.ErrorContains(t, err, "python3 - in image "+testImage+": start: exec: \"python3\": executable file not found")
}

func TestRunRejectsBeforeDocker(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		src  string
		edit func(*Options)
		want string
	}{
		"tag":         {"1", func(o *Options) { o.Image = "python:latest" }, "image: must be an immutable image ID"},
		"oversize":    {strings.Repeat("x", limits.MaxRequestBytes), nil, "over the limit of 65536"},
		"invalid utf": {"\xff", nil, "source: invalid UTF-8"},
		"memory":      {"1", func(o *Options) { o.Limits.Memory = 1 << 20 }, "memory: must be at least 64m"},
		"timeout":     {"1", func(o *Options) { o.Limits.Timeout = time.Hour }, "timeout: must be at most 10m0s"},
		"short":       {"1", func(o *Options) { o.Limits.Timeout = 250 * time.Millisecond }, "timeout: must be at least 1s"},
		"name":        {"1", func(o *Options) { o.Name = "--privileged" }, "name: must match"},
	} {
		t.Run(name, func(t *testing.T) {
			o, state := fake(t, "ok")
			if tc.edit != nil {
				tc.edit(&o)
			}
			res, err := Run(context.Background(), Request{Source: tc.src}, o)
			assert.Check(t, is.Equal(res.Verdict, protocol.Rejected))
			assert.Check(t, res.Error != nil)
			assert.Check(t, !res.Sandboxed)
			assert.Check(t, is.Equal(res.Container, ""))
			assert.Check(t, is.ErrorContains(err, tc.want))
			assert.Check(t, !strings.HasPrefix(err.Error(), "--"), "library errors name fields, not flags: %v", err)
			assert.Check(t, is.Len(fakedocker.Calls(state), 0), "docker was called")
		})
	}
}

func TestRunMissingCLI(t *testing.T) {
	t.Parallel()
	o, _ := fake(t, "ok")
	o.Engine = Engine{CLI: "docker", Env: []string{"PATH=/nonexistent", "HOME=" + t.TempDir()}}
	res, err := Run(context.Background(), Request{Source: "1"}, o)
	assert.Equal(t, res.Verdict, protocol.EngineFailure)
	assert.Assert(t, !res.Sandboxed, "docker never started")
	assert.Error(t, err, `engine failure: docker CLI "docker": not found in PATH`)
}

func TestRunRefusesDockerConfigProxies(t *testing.T) {
	t.Parallel()
	o, state := fake(t, "ok")
	dir := t.TempDir()
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "config.json"),
		[]byte(`{"proxies":{"default":{"httpProxy":"http://sentinel.invalid:3128"}}}`), 0o600))
	o.Engine.Env = append(o.Engine.Env, "DOCKER_CONFIG="+dir)
	res, err := Run(context.Background(), Request{Source: "1"}, o)
	assert.Equal(t, res.Verdict, protocol.EngineFailure)
	assert.ErrorContains(t, err, "sets proxies (default.httpProxy)")
	assert.Assert(t, is.Len(fakedocker.Calls(state), 0))
}
