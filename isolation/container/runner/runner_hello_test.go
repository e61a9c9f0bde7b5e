package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// TestRunnerHelloBeforeTheRequest: the hello arrives while the runner's
// stdin is still open and empty, so the host can judge it before it writes
// a byte of the source; a request that then comes gets the whole handshake
// timed.
func TestRunnerHelloBeforeTheRequest(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(runnerBin, "--timeout", "5s")
	stdin, err := cmd.StdinPipe()
	assert.NilError(t, err)
	stdout, err := cmd.StdoutPipe()
	assert.NilError(t, err)
	assert.NilError(t, cmd.Start())
	lines := make(chan []byte, 1)
	go func() {
		b := make([]byte, 32<<10)
		n, _ := stdout.Read(b)
		lines <- b[:n]
	}()
	var first []byte
	select {
	case first = <-lines:
	case <-time.After(5 * time.Second):
		t.Fatal("no hello within 5s while stdin stayed open")
	}
	assert.Assert(t, bytes.HasSuffix(first, []byte("\n")) && bytes.Count(first, []byte("\n")) == 1, "%q", first)
	h, err := protocol.DecodeHello(bytes.TrimSuffix(first, []byte("\n")))
	assert.NilError(t, err)
	assert.Equal(t, h.Selfcheck.UID, os.Getuid())
	_, err = stdin.Write([]byte(`{"source":"1+2"}`))
	assert.NilError(t, err)
	assert.NilError(t, stdin.Close())
	rest, err := io.ReadAll(stdout)
	assert.NilError(t, err)
	assert.NilError(t, cmd.Wait())
	resp, err := protocol.DecodeResponse(rest)
	assert.NilError(t, err, string(rest))
	assert.Equal(t, string(resp.Result), "3")
	assert.Assert(t, resp.HandshakeMicros > 0, "%+v", resp)
}

func TestRunnerSelfcheck(t *testing.T) {
	t.Parallel()
	h, r := runRunnerHello(t, `{"source":""}`, "--selfcheck")
	assert.Assert(t, r.OK)
	sc := h.Selfcheck
	assert.Equal(t, sc.UID, os.Getuid())
	assert.Equal(t, sc.GID, os.Getgid())
	assert.Assert(t, sc.CgroupVersion == 1 || sc.CgroupVersion == 2)
	assert.Assert(t, sc.NoFileSoft > 0)
	assert.Assert(t, is.Contains(sc.Interfaces, "lo"))
	assert.Assert(t, is.Contains(sc.EnvKeys, "PATH"))
	assert.Assert(t, sc.TmpMode != "", "%+v", sc)
}

// TestTmpAccess: an image's own /tmp, 0755 and not the sandbox user's, is
// seen as such, not only by its mount options.
func TestTmpAccess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var problems []string
	problem := func(what string, err error) { problems = append(problems, what+": "+err.Error()) }
	assert.NilError(t, os.Chmod(dir, 0o777|os.ModeSticky))
	mode, w := tmpAccess(dir, problem)
	assert.Equal(t, mode, "1777")
	assert.Assert(t, w)
	assert.NilError(t, os.Chmod(dir, 0o555))
	mode, w = tmpAccess(dir, problem)
	assert.Equal(t, mode, "555")
	assert.Assert(t, w == (os.Getuid() == 0), "root writes anywhere; anyone else cannot write a 0555 directory")
	mode, w = tmpAccess(filepath.Join(dir, "missing"), problem)
	assert.Equal(t, mode, "")
	assert.Assert(t, !w)
	assert.Equal(t, len(problems), 1)
}

// TestRunnerIdleCapAndDeadlineFromTheRequest: a runner started ahead of
// its request waits at most --idle for it, and its --timeout counts from
// the request, not from its start.
func TestRunnerIdleCapAndDeadlineFromTheRequest(t *testing.T) {
	t.Parallel()
	// No request at all: it ends on its own at the idle cap.
	// (10s is the shortest idle cap the policy allows: limits.MinIdle.)
	cmd := exec.Command(runnerBin, "--timeout", "5s", "--idle", "10s")
	stdin, err := cmd.StdinPipe()
	assert.NilError(t, err)
	defer stdin.Close()
	start := time.Now()
	out, err := cmd.Output()
	assert.NilError(t, err)
	assert.Assert(t, time.Since(start) < 13*time.Second)
	_, rest, _ := bytes.Cut(out, []byte("\n")) // after the hello
	resp, err := protocol.DecodeResponse(rest)
	assert.NilError(t, err)
	assert.Equal(t, resp.Error.Type, protocol.ErrRequest)
	assert.Equal(t, resp.Error.Message, "request: none within 10s")

	// A request that comes after more than --timeout still gets all of it.
	// It is written 800 ms after the hello, so after the runner started,
	// however late a loaded machine started it; the program (a few ms)
	// then has its whole 500 ms.
	cmd = exec.Command(runnerBin, "--timeout", "500ms", "--idle", "10s")
	stdin, err = cmd.StdinPipe()
	assert.NilError(t, err)
	stdout, err := cmd.StdoutPipe()
	assert.NilError(t, err)
	assert.NilError(t, cmd.Start())
	frames := bufio.NewReader(stdout)
	_, err = frames.ReadBytes('\n')
	assert.NilError(t, err, "no hello")
	time.Sleep(800 * time.Millisecond)
	_, err = stdin.Write([]byte(`{"source":"n = 0\nfor i in range(1000):\n  n += i\nn"}`))
	assert.NilError(t, err)
	assert.NilError(t, stdin.Close())
	rest, err = io.ReadAll(frames)
	assert.NilError(t, err)
	assert.NilError(t, cmd.Wait())
	resp, err = protocol.DecodeResponse(rest)
	assert.NilError(t, err)
	assert.Assert(t, resp.OK, "%+v", resp.Error)
	assert.Equal(t, string(resp.Result), "499500")
	assert.Assert(t, resp.ElapsedMicros > 0 && resp.ElapsedMicros < 500_000, "elapsed %d µs", resp.ElapsedMicros)
}
