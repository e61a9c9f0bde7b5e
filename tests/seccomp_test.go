package tests

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
	"github.com/synapse-lang/synapse-isolation/limits"
	"github.com/synapse-lang/synapse-isolation/limits/seccomp"
)

// TestSeccompRefusesTheKernelSurfaces: under run's argv, a static binary in
// exec mode really attempts each kernel surface the profile closes and is
// refused by the policy's filter itself (its own errno), clone into a new
// user namespace by clone's flag condition, and clone3 with ENOSYS. The
// same binary under the engine's own default profile is logged: that is
// the boundary before the project had its own.
func TestSeccompRefusesTheKernelSurfaces(t *testing.T) {
	needEngine(t)
	t.Parallel()
	r := probe(t, "syscalls")
	filtered := "errno " + strconv.Itoa(limits.FilterErrno)
	for _, name := range []string{"io_uring_setup", "ptrace", "personality", "userfaultfd", "bpf", "perf_event_open",
		"keyctl", "add_key", "unshare", "mount", "kexec_load", "name_to_handle_at", "open_by_handle_at"} {
		assert.Check(t, is.Equal(r[name], filtered), name)
	}
	assert.Check(t, is.Equal(r["clone_newuser"], "errno 1"), "clone(CLONE_NEWUSER) gets EPERM")
	assert.Check(t, is.Equal(r["clone3"], "errno 38"), "clone3 gets ENOSYS")

	cmd := exec.Command("docker", "run", "--rm", "-i", "--user", "65534:65534", "--cap-drop=ALL", "--security-opt", "no-new-privileges",
		"--network", "none", "--pull", "never", "--entrypoint", "/probe", probeImage)
	cmd.Stdin = strings.NewReader("syscalls")
	out, err := cmd.Output()
	assert.NilError(t, err)
	var before map[string]any
	assert.NilError(t, json.Unmarshal(out, &before), string(out))
	t.Logf("the engine's default profile: %s", strings.TrimSpace(string(out)))
}

// TestSeccompDroppedOptionIsRefused: a client that drops the seccomp=
// option leaves the engine's default profile in force; the hello's probes
// show it and the program is never sent.
func TestSeccompDroppedOptionIsRefused(t *testing.T) {
	needEngine(t)
	t.Parallel()
	path := filepath.Join(t.TempDir(), "docker-no-seccomp")
	script := `#!/bin/sh
# Drops --security-opt seccomp=..., keeps the rest.
opt=
for a do
  shift
  if [ -n "$opt" ]; then
    opt=
    case "$a" in seccomp=*) continue;; esac
    set -- "$@" --security-opt "$a"; continue
  fi
  case "$a" in --security-opt) opt=1; continue;; esac
  set -- "$@" "$a"
done
exec docker "$@"
`
	assert.NilError(t, fakedocker.WriteExecutable(path, []byte(script)))
	start := time.Now()
	r := tool(t, nil, "", "run", "--cli", path, "--image", refImage, "--timeout", refusedTimeout, "--code", spin)
	assertRefused(t, r, time.Since(start), "the policy's seccomp profile is not in force", "io_uring_setup got")
}

// TestSeccompAuditOfWhatRunExecutes: the argv that run prints audits as
// compliant with its profile file read, and not with the file changed.
func TestSeccompAuditOfWhatRunExecutes(t *testing.T) {
	cache := t.TempDir()
	env := []string{"XDG_CACHE_HOME=" + cache}
	r := tool(t, env, "", "argv", "--image", refImage, "--format", "json")
	assert.Equal(t, r.code, 0, r.stderr)
	a := tool(t, env, r.stdout, "audit", "--input", "json")
	assert.Equal(t, a.code, 0, a.stdout+a.stderr)
	profile := filepath.Join(cache, "synapse-isolation", seccomp.FileName())
	assert.Check(t, is.Contains(r.stdout, profile))
	assert.NilError(t, os.WriteFile(profile, []byte(`{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[]}`), 0o600))
	a = tool(t, env, r.stdout, "audit", "--input", "json")
	assert.Check(t, is.Equal(a.code, 1), a.stdout+a.stderr)
	assert.Check(t, is.Contains(a.stdout, "is not the policy's profile"))
}

// TestRunnerStaysInsideTheTable runs the runner's own paths (a Starlark
// result, an out-of-memory Starlark program, a timeout, exec mode with the
// probe and with Python) under the logging profile: the table's rules,
// and every other syscall allowed and logged by the kernel. Nothing may be
// logged. The timeout is 3 s: the deadline bounds the wait for the hello
// too, and the suite runs in parallel. A call the table refuses fails quietly in production, with
// EPERM; here it fails the suite (the runner's OOM decoy once waited in
// ppoll, which the table refuses, and so spun on the container's CPU).
func TestRunnerStaysInsideTheTable(t *testing.T) {
	needEngine(t)
	t.Parallel()
	if _, err := os.Stat("/dev/kmsg"); os.Geteuid() != 0 || err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and the kernel's log cannot be read (root and /dev/kmsg needed): euid %d, %v", os.Geteuid(), err)
		}
		t.Skipf("SKIPPED, NOT PASSED: the kernel's seccomp log needs root and /dev/kmsg")
	}
	script := `set -f # the sources are words, never patterns
for r in \
  "--image $REF --code 1+2" \
  "--image $REF --memory 64m --code x='x'*(1<<29)" \
  "--image $REF --timeout 3s --code while(True):pass" \
  "--image $PROBE --code env -- /probe" \
  "--image $PY --code print(1+2) -- python3 -"; do
  $TOOL run $r | grep -o '"verdict":"[a-z_]*"'
done`
	cmd := exec.Command(seccomplog, "--", "sh", "-c", script)
	cmd.Env = append(os.Environ(), "TOOL="+toolBin, "REF="+refImage, "PROBE="+probeImage, "PY="+pythonImage)
	// The tool prints the command's output on stderr, its own on stdout.
	var verdicts bytes.Buffer
	cmd.Stderr = &verdicts
	out, err := cmd.Output()
	assert.NilError(t, err, "%s%s", out, verdicts.String())
	var got []string
	for _, w := range strings.Fields(verdicts.String()) {
		if strings.HasPrefix(w, `"verdict":`) {
			got = append(got, w)
		}
	}
	assert.Check(t, is.DeepEqual(got, []string{`"verdict":"ok"`, `"verdict":"oom"`,
		`"verdict":"timeout"`, `"verdict":"ok"`, `"verdict":"ok"`}), verdicts.String())
	first, _, _ := strings.Cut(string(out), "\n")
	assert.Check(t, strings.HasPrefix(first, "0 syscalls outside the table"), "%s", out)
	t.Logf("%s", out)
}
