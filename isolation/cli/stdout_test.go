package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
)

// envAsCLI makes this test binary run as the command line itself, as the
// root's main does (Main with the process's own streams), so a test can
// give it a real closed pipe as fd 1.
const envAsCLI = "SYNAPSE_ISOLATION_TEST_AS_CLI"

// mainAsCLI runs Main and exits when envAsCLI is set. The variable is
// dropped first: the docker the CLI runs is this binary too, as the fake.
func mainAsCLI() {
	if os.Getenv(envAsCLI) == "" {
		return
	}
	os.Unsetenv(envAsCLI)
	os.Exit(Main(context.Background(), append([]string{"synapse-isolation"}, os.Args[1:]...), os.Environ(), os.Stdin, os.Stdout, os.Stderr))
}

// runWithClosedStdout runs the CLI as a process whose stdout is a pipe
// with no reader, as under `| head -c 1` once head has exited.
func runWithClosedStdout(t *testing.T, env []string, stdin string, args ...string) (code int, stderr string) {
	t.Helper()
	self, err := os.Executable()
	assert.NilError(t, err)
	r, w, err := os.Pipe()
	assert.NilError(t, err)
	r.Close()
	defer w.Close()
	var errOut bytes.Buffer
	cmd := exec.Command(self, args...)
	cmd.Env = append(env, envAsCLI+"=1", "GORACE=atexit_sleep_ms=0")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(stdin), w, &errOut
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			t.Fatalf("%q: killed by %v; stderr: %q", args, ws.Signal(), errOut.String())
		}
		return ee.ExitCode(), errOut.String()
	}
	assert.NilError(t, err)
	return 0, errOut.String()
}

// TestClosedStdoutIsEngineFailure: a command whose stdout is a closed
// pipe is neither killed by SIGPIPE nor reports its verdict: it exits 125,
// saying on one line of stderr that the result could not be written.
func TestClosedStdoutIsEngineFailure(t *testing.T) {
	t.Parallel()
	self, _, env := useFakeDocker(t, "ok")
	for _, args := range [][]string{
		{"run", "--image", testImage, "--cli", self, "--code", "1+2"},
		{"run", "--format", "text", "--image", testImage, "--cli", self, "--code", "1+2"},
		{"eval", "--code", "1+2"},
		{"argv", "--image", testImage},
		{"audit", "--", "docker", "run", testImage},
		{"doctor", "--cli", self},
		{"version"},
		{"--help"},
	} {
		code, errOut := runWithClosedStdout(t, env, "", args...)
		assert.Check(t, is.Equal(code, 125), "%q: %s", args, errOut)
		assert.Check(t, is.Equal(errOut, "synapse-isolation: engine failure: writing the result: write /dev/stdout: broken pipe\n"), "%q", args)
	}
}

// TestClosedStdoutEndsTheBatch: batch's results go to a closed pipe; it
// exits 125 saying why, with its pool closed and no container left.
func TestClosedStdoutEndsTheBatch(t *testing.T) {
	t.Parallel()
	self, state, env := useFakeDocker(t, "by-source")
	input := strings.Repeat(`{"id": 1, "source": "ok"}`+"\n", 20)
	code, errOut := runWithClosedStdout(t, env, input, "batch", "--image", testImage, "--cli", self, "--parallel", "4")
	assert.Check(t, is.Equal(code, 125), errOut)
	assert.Check(t, is.Contains(errOut, "synapse-isolation: engine failure: writing the result: write /dev/stdout: broken pipe\n"))
	assert.Check(t, is.Len(fakedocker.Containers(state), 0), "a container outlived the batch")
}

// epipeWriter fails every write as a pipe with no reader does.
type epipeWriter struct{}

func (epipeWriter) Write([]byte) (int, error) { return 0, syscall.EPIPE }

// TestEveryCommandChecksItsStdout: the commands that print a report or a
// listing turn a failed write into 125 too, not only run and eval.
func TestEveryCommandChecksItsStdout(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"argv", "--image", testImage},
		{"audit", "--", "docker", "run", testImage},
		{"audit", "--format", "json", "--", "docker", "run", testImage},
		{"version"},
		{"run", "--help"},
		{"man"},
		{"completion", "bash"},
	} {
		var stderr bytes.Buffer
		code := run(context.Background(), append([]string{"synapse-isolation"}, args...), os.Environ(), strings.NewReader(""), epipeWriter{}, &stderr)
		assert.Check(t, is.Equal(code, 125), "%q", args)
		assert.Check(t, is.Equal(stderr.String(), "synapse-isolation: engine failure: writing the result: broken pipe\n"), "%q", args)
	}
}

// TestBatchStopsAtAClosedStdoutWithItsInputOpen: a producer that keeps
// the input open (`tail -f reqs | batch | head -n 1`) does not keep a
// batch whose results can no longer be written waiting for its next line.
func TestBatchStopsAtAClosedStdoutWithItsInputOpen(t *testing.T) {
	t.Parallel()
	self, state, env := useFakeDocker(t, "by-source")
	in, feed := io.Pipe()
	t.Cleanup(func() { feed.Close() })
	go func() { _, _ = io.WriteString(feed, `{"id": 1, "source": "ok"}`+"\n") }()
	var stderr bytes.Buffer
	done := make(chan int)
	go func() {
		done <- run(context.Background(), []string{"synapse-isolation", "batch", "--image", testImage, "--cli", self, "--parallel", "2"},
			env, in, epipeWriter{}, &stderr)
	}()
	select {
	case code := <-done:
		assert.Check(t, is.Equal(code, 125))
		assert.Check(t, is.Contains(stderr.String(), "synapse-isolation: engine failure: writing the result: broken pipe\n"))
		assert.Check(t, is.Len(fakedocker.Containers(state), 0), "a container outlived the batch")
	case <-time.After(time.Minute): // a pool's start, one run and its close: a second on a quiet machine
		t.Fatal("batch went on waiting for input after its stdout broke")
	}
}
