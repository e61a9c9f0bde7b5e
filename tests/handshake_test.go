package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
)

// spin would keep a CPU busy for far more than 30 s if it ever started.
const spin = "def f():\n  for i in range(1000000000):\n    pass\nf()"

// refusedWithin is how soon a run in a sandbox that fails its hello must
// end: the container's start, the hello, the removal (a second or two).
// The runs it bounds have a deadline of refusedTimeout, twice as far, so
// a refusal within it did not wait for the deadline.
const (
	refusedWithin  = 30 * time.Second
	refusedTimeout = "60s"
)

// droppingCLI writes a docker client that silently drops --pids-limit,
// --read-only and the nofile ulimit, then runs the real docker.
func droppingCLI(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "docker-dropping")
	script := `#!/bin/sh
# Drops --pids-limit N, --read-only and --ulimit nofile=..., keeps the rest.
drop= ulimit=
for a do
  shift
  if [ -n "$drop" ]; then drop=; continue; fi
  if [ -n "$ulimit" ]; then
    ulimit=
    case "$a" in nofile=*) continue;; esac
    set -- "$@" --ulimit "$a"; continue
  fi
  case "$a" in
    --pids-limit) drop=1; continue;;
    --read-only) continue;;
    --ulimit) ulimit=1; continue;;
  esac
  set -- "$@" "$a"
done
exec docker "$@"
`
	assert.NilError(t, fakedocker.WriteExecutable(path, []byte(script)))
	return path
}

// assertRefused checks a run refused at its hello: exit 3, not sandboxed,
// no result, each named boundary in the message, in time, nothing left.
func assertRefused(t *testing.T, r toolResult, took time.Duration, names ...string) {
	t.Helper()
	t.Logf("refused in %s: %s", took.Round(time.Millisecond), strings.TrimSpace(r.stderr))
	assert.Check(t, is.Equal(r.code, 3), r.stdout+r.stderr)
	assert.Check(t, is.Equal(r.res.Verdict, "sandbox_failure"))
	assert.Check(t, !r.res.Sandboxed, "sandboxed must be false for a refused hello")
	assert.Check(t, r.res.Result == nil || string(r.res.Result) == "null")
	assert.Check(t, took < refusedWithin, "took %s", took)
	for _, n := range names {
		assert.Check(t, is.Contains(r.stderr, n))
	}
	if r.res.Container != "" {
		assertGone(t, r.res.Container)
		assertRunGone(t, r.res.RunID)
	}
}

func TestHelloRefusesAClientThatDropsLimits(t *testing.T) {
	needEngine(t)
	t.Parallel()
	start := time.Now()
	r := tool(t, nil, "", "run", "--cli", droppingCLI(t), "--image", refImage, "--timeout", refusedTimeout, "--code", spin)
	assertRefused(t, r, time.Since(start), "pids.max not visible", "the root filesystem is writable",
		"open files limit is", "the program was never sent")
}

func TestHelloRefusesAnImageWithItsOwnTmp(t *testing.T) {
	needEngine(t)
	t.Parallel()
	// The reference runner, with a /tmp that COPY made: 0755, root's.
	dir := t.TempDir()
	assert.NilError(t, exec.Command("docker", "save", "-o", filepath.Join(dir, "ref.tar"), refImage).Run())
	runner, err := exec.Command("sh", "-c", "tar -xOf "+filepath.Join(dir, "ref.tar")+" --wildcards '*/layer.tar' | tar -xO runner").Output()
	assert.NilError(t, err)
	assert.NilError(t, fakedocker.WriteExecutable(filepath.Join(dir, "runner"), runner))
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "marker"), []byte("x"), 0o644))
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(
		"FROM scratch\nCOPY runner /runner\nCOPY marker /tmp/marker\nUSER 65534:65534\nENTRYPOINT [\"/runner\"]\n"), 0o644))
	out, err := exec.Command("docker", "build", "--quiet", dir).Output()
	assert.NilError(t, err)
	img := strings.TrimSpace(string(out))
	t.Cleanup(func() { _ = exec.Command("docker", "rmi", "-f", img).Run() })

	start := time.Now()
	r := tool(t, nil, "", "run", "--image", img, "--timeout", refusedTimeout, "--code", spin)
	assertRefused(t, r, time.Since(start), "/tmp is mode 755 and writable false")

	d := tool(t, nil, "", "doctor", "--image", img)
	t.Logf("doctor:\n%s", d.stdout)
	assert.Check(t, is.Equal(d.code, 1))
	assert.Check(t, is.Contains(d.stdout, "build the image without /tmp, or with /tmp mode 1777"))
}

func TestHelloRefusesABatchThroughADroppingClient(t *testing.T) {
	needEngine(t)
	t.Parallel()
	in := strings.Repeat(`{"source": "def f():\n  for i in range(1000000000):\n    pass\nf()"}`+"\n", 3)
	start := time.Now()
	r := tool(t, nil, in, "batch", "--cli", droppingCLI(t), "--image", refImage, "--timeout", refusedTimeout, "--parallel", "2")
	took := time.Since(start)
	t.Logf("batch refused in %s: %s", took.Round(time.Millisecond), strings.TrimSpace(r.stderr))
	assert.Check(t, is.Equal(r.code, 3), r.stdout+r.stderr)
	assert.Check(t, took < refusedWithin, "took %s", took)
	rs := parseBatch(t, r.stdout)
	assert.Check(t, is.Len(rs, 3))
	for _, res := range rs {
		assert.Check(t, is.Equal(res.Verdict, "sandbox_failure"))
		assert.Check(t, !res.Sandboxed)
		assert.Check(t, res.Error != nil && strings.Contains(res.Error.Message, "pids.max not visible"))
	}
	assert.Check(t, is.Contains(r.stderr, "batch: dropping the current engine: "))
}

// TestHelloHostileRunners: a runner whose first frame is anything but a
// hello that passes is refused, its container removed.
func TestHelloHostileRunners(t *testing.T) {
	needEngine(t)
	t.Parallel()
	for mode, want := range map[string]string{
		"endless-line":  "no hello from the runner within 3s",
		"not-json":      "hello: want a JSON object",
		"oversized":     "hello: larger than 16384 bytes",
		"weak":          "pids.max not visible",
		"twice":         "the runner wrote more after its hello, before it was sent a request",
		"duplicate-key": `hello: duplicate field "v"`,
		"dumpable":      "the program could open the runner's /proc/1/mem",
		"v1":            "it answered with protocol version 1, want 8",
	} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			// The runners that never end a hello meet the deadline (v1's
			// answers only then, to the closed stdin); every other one is
			// refused well before its own.
			timeout := refusedTimeout
			if mode == "endless-line" || mode == "v1" {
				timeout = "3s"
			}
			start := time.Now()
			r := tool(t, nil, "", "run", "--image", hostileImage, "--timeout", timeout, "--code", "1+2", "--", mode)
			assertRefused(t, r, time.Since(start), want)
		})
	}
}

// TestHelloSilentRunnerIsTheTimeout: a runner silent until the run's own
// deadline cannot be told from a container slow to start: the run timed
// out, and the source never went in.
func TestHelloSilentRunnerIsTheTimeout(t *testing.T) {
	needEngine(t)
	t.Parallel()
	r := tool(t, nil, "", "run", "--image", hostileImage, "--timeout", "3s", "--code", "1+2", "--", "silent")
	assert.Check(t, is.Equal(r.code, 124), r.stdout+r.stderr)
	assert.Check(t, is.Equal(r.res.Verdict, "timeout"))
	assert.Check(t, is.Contains(r.stderr, "the deadline of 3s passed before the sandbox was ready"))
	assert.Check(t, is.Contains(r.stderr, "the program was never sent"))
	assert.Check(t, !r.res.Sandboxed)
	if r.res.Container != "" {
		assertGone(t, r.res.Container)
		assertRunGone(t, r.res.RunID)
	}
}

// TestHelloUnknownContextIsDockersFailure: no container ran, so no missing
// hello is blamed on a sandbox: docker's own failure, in docker's words.
func TestHelloUnknownContextIsDockersFailure(t *testing.T) {
	needEngine(t)
	t.Parallel()
	r := tool(t, nil, "", "run", "--context", "no-such-context", "--image", refImage, "--code", "1+2")
	assert.Check(t, is.Equal(r.code, 125), r.stderr)
	assert.Check(t, is.Equal(r.res.Verdict, "engine_failure"))
	// docker's first word on the run fails for the context: the read of
	// the image's labels, or docker run when they are known already.
	assert.Check(t, is.Contains(r.stderr, `engine failure: `))
	assert.Check(t, is.Contains(r.stderr, `context "no-such-context"`))
	assert.Check(t, !strings.Contains(r.stderr, "sandbox failure"), r.stderr)
	assert.Check(t, !r.res.Sandboxed)
	assert.Check(t, r.res.ContainerExit == nil, "no container ran to have an exit status: %v", r.res.ContainerExit)
}
