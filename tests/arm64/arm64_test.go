// Package arm64 is the live check on an arm64 engine: the images built for
// linux/arm64 by scripts/build-image.sh --arch arm64 on that engine, and the
// tool's runs there: the hello with every boundary it proves, 1+2, Python,
// the verdicts, and the syscall filter met by aarch64's own numbers.
//
// The engine is SYNAPSE_ARM64_DOCKER_HOST (scripts/arm64-check.sh boots one
// under qemu-system-aarch64 and sets it). Without it every test skips,
// saying so; under CI=true that is a failure. SYNAPSE_ARM64_IMAGE and
// SYNAPSE_ARM64_PYTHON_IMAGE name images built there already.
package arm64

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

var (
	host       string // the arm64 engine's DOCKER_HOST
	toolBin    string
	refImage   string
	pyImage    string
	missingErr error
)

func TestMain(m *testing.M) { os.Exit(setup(m)) }

func setup(m *testing.M) int {
	host = os.Getenv("SYNAPSE_ARM64_DOCKER_HOST")
	if host == "" {
		missingErr = errors.New("SYNAPSE_ARM64_DOCKER_HOST is not set (scripts/arm64-check.sh sets it)")
		if os.Getenv("CI") == "true" {
			fmt.Fprintf(os.Stderr, "FAIL: CI=true and %v: the arm64 check must run against an arm64 engine\n", missingErr)
			return 1
		}
		fmt.Fprintf(os.Stderr, "\n*** SKIPPING the arm64 check: %v ***\n\n", missingErr)
		return m.Run()
	}
	if err := prepare(); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: %v\n", err)
		return 1
	}
	return m.Run()
}

// prepare checks that the engine is arm64, builds the tool for this
// machine, and the reference and Python images for arm64 on the engine.
func prepare() error {
	out, err := docker("version", "--format", "{{.Server.Arch}} {{.Server.Version}}")
	if err != nil {
		return fmt.Errorf("the arm64 engine at %s: %v: %s", host, err, out)
	}
	if !strings.HasPrefix(string(out), "arm64 ") {
		return fmt.Errorf("the engine at %s is %s, not arm64", host, bytes.TrimSpace(out))
	}
	dir, err := os.MkdirTemp("", "synapse-arm64")
	if err != nil {
		return err
	}
	toolBin = filepath.Join(dir, "synapse-isolation")
	if out, err := exec.Command("go", "build", "-o", toolBin, "../..").CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v: %s", err, out)
	}
	for _, img := range []struct {
		id        *string
		kind, env string
	}{{&refImage, "starlark", "SYNAPSE_ARM64_IMAGE"}, {&pyImage, "python", "SYNAPSE_ARM64_PYTHON_IMAGE"}} {
		if *img.id = os.Getenv(img.env); *img.id != "" {
			continue // built already, on this engine
		}
		start := time.Now()
		cmd := exec.Command("../../scripts/build-image.sh", img.kind, "--arch", "arm64")
		cmd.Env = append(os.Environ(), "DOCKER_HOST="+host)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("scripts/build-image.sh %s --arch arm64: %v: %s", img.kind, err, stderr.Bytes())
		}
		*img.id = strings.TrimSpace(string(out))
		fmt.Fprintf(os.Stderr, "arm64: the %s image %s built in %s\n", img.kind, *img.id, time.Since(start).Round(time.Second))
	}
	return nil
}

func docker(args ...string) ([]byte, error) {
	cmd := exec.Command("docker", args...)
	cmd.Env = append(os.Environ(), "DOCKER_HOST="+host)
	return cmd.CombinedOutput()
}

func needEngine(t *testing.T) {
	t.Helper()
	if missingErr != nil {
		t.Skipf("SKIPPED, NOT PASSED: %v", missingErr)
	}
}

// result is the part of run's JSON the check reads.
type result struct {
	Verdict   string          `json:"verdict"`
	Result    json.RawMessage `json:"result"`
	Output    string          `json:"output"`
	Sandboxed bool            `json:"sandboxed"`
	Container string          `json:"container"`
	RunID     string          `json:"run_id"`
	Timings   struct {
		StartMS *int64 `json:"start_ms"`
	} `json:"timings"`
	Usage struct {
		CPUMS *int64 `json:"cpu_ms"`
	} `json:"usage"`
}

// slow is the timeout of a run that must end by itself: the deadline
// counts from docker run, and an emulated arm64 host takes 4 to 11 s to
// start a container.
const slow = "60s"

// run is `synapse-isolation run ARGS` against the arm64 engine, with the
// emulated host's timeout unless ARGS name one: its exit status, JSON and
// stderr; the run's container must be gone from there.
func run(t *testing.T, args ...string) (int, result, string) {
	t.Helper()
	if !slices.Contains(args, "--timeout") {
		args = append([]string{"--timeout", slow}, args...)
	}
	cmd := exec.Command(toolBin, append([]string{"run"}, args...)...)
	cmd.Env = append(os.Environ(), "DOCKER_HOST="+host)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else {
		assert.NilError(t, err)
	}
	var r result
	assert.NilError(t, json.Unmarshal(stdout.Bytes(), &r), "stdout: %s\nstderr: %s", stdout.Bytes(), stderr.Bytes())
	start := int64(-1)
	if r.Timings.StartMS != nil {
		start = *r.Timings.StartMS
	}
	t.Logf("run %s: %s in a container started in %d ms", strings.Join(args, " "), r.Verdict, start)
	assert.Assert(t, r.RunID != "", stderr.String())
	out, err := docker("ps", "--all", "--quiet", "--filter", "label=io.synapse-isolation.run-id="+r.RunID)
	assert.NilError(t, err, string(out))
	assert.Check(t, is.Equal(strings.TrimSpace(string(out)), ""), "run %s left a container behind", r.RunID)
	return code, r, stderr.String()
}

// TestArm64OnePlusTwo is the README's main job on arm64: the hello passed,
// so every boundary it proves held there (user 65534, no capabilities, no
// new privileges, read-only root, no network, the memory, swap, CPU, PID
// and file limits, the engine's seccomp profile by its probes).
func TestArm64OnePlusTwo(t *testing.T) {
	needEngine(t)
	code, r, stderr := run(t, "--image", refImage, "--code", "1+2")
	assert.Equal(t, code, 0, stderr)
	assert.Check(t, is.Equal(r.Verdict, "ok"))
	assert.Check(t, is.Equal(string(r.Result), "3"))
	assert.Check(t, r.Sandboxed)
}

func TestArm64Python(t *testing.T) {
	needEngine(t)
	code, r, stderr := run(t, "--image", pyImage, "--code", "import platform; print(1, platform.machine())", "--", "python3", "-")
	assert.Equal(t, code, 0, stderr)
	assert.Check(t, is.Equal(r.Output, "1 aarch64\n"))
	assert.Check(t, r.Sandboxed)
}

// TestArm64SyscallFilter is the attack by aarch64's numbers: a Python
// program calls what the policy denies through libc's syscall(2) and
// gets the filter's own errno, 4094; what it allows still works.
func TestArm64SyscallFilter(t *testing.T) {
	needEngine(t)
	const src = `import ctypes, json
libc = ctypes.CDLL(None, use_errno=True)
calls = {"io_uring_setup": (425, 0, 0), "ptrace": (117, -1, 0, 0), "bpf": (280, -1, 0, 0),
         "unshare": (97, -1), "mount": (40, 0, 0, 0, 0, 0), "keyctl": (219, -1, 0, 0),
         "kexec_load": (104, 0, 0, 0, -1), "personality(PER_LINUX32)": (92, 8),
         "socket(AF_PACKET)": (198, 17, 3, 0), "perf_event_open": (241, 0, 0, -1, -1, 0),
         "memfd_secret": (447, -1)}
got = {}
for name, args in calls.items():
    ctypes.set_errno(0)
    r = libc.syscall(*[ctypes.c_long(a) for a in args])
    got[name] = ctypes.get_errno() if r == -1 else 0
got["getpid"] = libc.syscall(ctypes.c_long(172))
print(json.dumps(got, sort_keys=True))`
	code, r, stderr := run(t, "--image", pyImage, "--code", src, "--", "python3", "-")
	assert.Equal(t, code, 0, stderr)
	var got map[string]int
	assert.NilError(t, json.Unmarshal([]byte(r.Output), &got), r.Output)
	for name, errno := range got {
		if name == "getpid" {
			assert.Check(t, errno > 0, "getpid returned %d", errno)
			continue
		}
		assert.Check(t, is.Equal(errno, 4094), name)
	}
	assert.Check(t, is.Len(got, 12))
}

func TestArm64Verdicts(t *testing.T) {
	needEngine(t)
	for _, c := range []struct {
		name    string
		args    []string
		code    int
		verdict string
	}{
		{"oom", []string{"--memory", "64m", "--code", "x = 'x' * (1 << 29)\nlen(x)"}, 137, "oom"},
		// Long enough for the container to start (4 to 11 s seen there) with
		// room, so the program was sent and the deadline is what stops it.
		{"timeout", []string{"--timeout", "40s", "--code", "while True:\n  pass"}, 124, "timeout"},
		{"cpu_timeout", []string{"--cpu-time", "1s", "--code", "while True:\n  pass"}, 124, "cpu_timeout"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, r, stderr := run(t, append([]string{"--image", refImage}, c.args...)...)
			assert.Check(t, is.Equal(code, c.code), stderr)
			assert.Check(t, is.Equal(r.Verdict, c.verdict), stderr)
			assert.Check(t, !strings.Contains(stderr, "never sent"), stderr)
			assert.Check(t, r.Sandboxed, "the hello passed")
			if c.verdict == "cpu_timeout" && r.Usage.CPUMS != nil {
				assert.Check(t, *r.Usage.CPUMS >= 1000, "cpu_ms %d", *r.Usage.CPUMS)
			}
		})
	}
}

// TestArm64RunnerFilter proves the runner's own aarch64 program on an arm64
// kernel: the runner's filter test, compiled for arm64, runs in a
// container with the engine's profile off (as under gVisor, which ignores
// it), installs the program the runner would and meets each probe's
// errno 4094, clone3's ENOSYS and reboot's EPERM through it alone, while
// threads, files and sockets work under it.
func TestArm64RunnerFilter(t *testing.T) {
	needEngine(t)
	dir := t.TempDir()
	build := exec.Command("go", "test", "-c", "-o", filepath.Join(dir, "runner.test"), "../../isolation/container/runner")
	build.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
	out, err := build.CombinedOutput()
	assert.NilError(t, err, string(out))
	// The test execs /bin/true under the filter: a static program that
	// exits 0 stands in.
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "true.go"), []byte("package main\n\nfunc main() {}\n"), 0o644))
	build = exec.Command("go", "build", "-o", filepath.Join(dir, "true"), filepath.Join(dir, "true.go"))
	build.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
	out, err = build.CombinedOutput()
	assert.NilError(t, err, string(out))
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "Dockerfile"),
		[]byte("FROM scratch\nCOPY runner.test /runner.test\nCOPY true /bin/true\nENTRYPOINT [\"/runner.test\"]\n"), 0o644))
	cmd := exec.Command("docker", "build", "--quiet", "--pull=false", dir)
	cmd.Env = append(os.Environ(), "DOCKER_HOST="+host, "DOCKER_BUILDKIT=0")
	id, err := cmd.Output()
	assert.NilError(t, err)
	image := strings.TrimSpace(string(id))
	t.Cleanup(func() { _, _ = docker("rmi", image) })
	out, err = docker("run", "--rm", "--network", "none", "--user", "65534:65534", "--cap-drop=ALL", "--env", "SYNAPSE_RUNNER_TEST_NO_BUILD=1",
		"--security-opt", "seccomp=unconfined", "--tmpfs", "/tmp:rw,size=32m,mode=1777", "--pull", "never",
		image, "-test.run", "^TestInstallFilterOnTheKernel$", "-test.v", "-test.count=1")
	t.Logf("%s", out)
	assert.NilError(t, err)
	assert.Check(t, is.Contains(string(out), "--- PASS: TestInstallFilterOnTheKernel"))
}

// TestArm64ImageIsReproducible: the reference image built again on the
// arm64 engine has the same ID.
func TestArm64ImageIsReproducible(t *testing.T) {
	needEngine(t)
	cmd := exec.Command("../../scripts/build-image.sh", "--arch", "arm64")
	cmd.Env = append(os.Environ(), "DOCKER_HOST="+host, "SYNAPSE_IMAGE_TAG=synapse-runtime:again")
	out, err := cmd.Output()
	assert.NilError(t, err)
	assert.Check(t, is.Equal(strings.TrimSpace(string(out)), refImage))
}
