package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
	"github.com/synapse-lang/synapse-isolation/limits"
)

func TestMain(m *testing.M) {
	mainAsCLI()       // acts as the CLI and exits when a test runs it as one
	fakedocker.Main() // acts as docker and exits when a test runs it as one
	os.Exit(m.Run())
}

const testImage = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// cli runs the command line in-process and returns its exit status and output.
func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	return runCLIEnv(t, os.Environ(), stdin, args...)
}

// runCLIEnv runs the CLI in process with env as its environment.
func runCLIEnv(t *testing.T, env []string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append([]string{"synapse-isolation"}, args...), env, strings.NewReader(stdin), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// commandNames are the app's commands, so a new one cannot be missed.
func commandNames() []string {
	var names []string
	for _, cmd := range newApp(nil, nil, nil).VisibleCommands() {
		names = append(names, cmd.Name)
	}
	return names
}

func TestHelpGolden(t *testing.T) {
	t.Parallel()
	for _, cmd := range append([]string{""}, commandNames()...) {
		args := []string{"--help"}
		if cmd != "" {
			args = []string{cmd, "--help"}
		}
		code, out, errOut := runCLI(t, "", args...)
		assert.Equal(t, code, 0, "%q: %s", args, errOut)
		assert.Equal(t, errOut, "")
		name := "help-" + cmd
		if cmd == "" {
			name = "help"
		}
		golden.Assert(t, out, name+".golden")
	}
}

func TestBadFlagsGolden(t *testing.T) {
	t.Parallel()
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
		{"argv", "--image", testImage, "--memory", "1.3k"},
		{"argv", "--image", testImage, "--memory", "2048g"},
		{"argv", "--image", testImage, "--timeout", "0s"},
		{"argv", "--image", testImage, "--timeout", "1h"},
		{"argv", "--image", testImage, "--timeout", "ten"},
		{"argv", "--image", testImage, "--name", "bad name"},
		{"argv", "--image", testImage, "--name", "a"},
		{"argv", "--image", testImage, "--runtime", "-x"},
		{"argv", "--image", testImage, "--format", "yaml"},
		{"argv", "--image", testImage, "--at", "soon"},
		// A stray word never changes what runs, and flags after it are not dropped.
		{"argv", "--image", testImage, "python3", "--format", "json"},
		{"run", "--image", testImage, "--code", "1", "python3"},
		{"doctor", "oops", "--format", "json"},
		{"eval", "--code", "1", "extra"},
		{"version", "extra"},
		{"gc", "--dry-run", "oops"},
		{"audit", "docker", "run", "x"},
		{"audit", "--format", "xml", "--", "docker", "run", "x"},
		{"run", "--bogus"},
		{"run", "--image", testImage, "--code", "1", "--file", "x"},
		{"eval", "--memory", "1g", "--code", "1"},
		// Each message says what the user wrote and what to write instead.
		{"run", "-x"},
		{"argv", "-bogus=1"},
		{"argv", "--image", testImage, "--memory", "1.5k"},
		{"argv", "--image", testImage, "--timeout", "3600s"},
		{"eval", "--timeout", "3600s", "--code", "1"},
		{"batch", "--image", testImage, "--cli", "/nonexistent/docker", "--idle", "3600s"},
		{"argv", "--image", "0123456789ab"},
		{"argv", "--image", strings.TrimPrefix(testImage, "sha256:")},
		{"rn"},
		{"docter"},
		{"doctor", "--cli", "/nonexistent/docker", "--memory", "10m"},
		{"doctor", "--cli", "/nonexistent/docker", "--memory", "99999g"},
		{"doctor", "--cli", "/nonexistent/docker", "--image", "synapse-runtime:local"},
		{"doctor", "--cli", "/nonexistent/docker", "--runtime=-x"},
		// doctor's --timeout is run's: the same parse, the same range.
		{"doctor", "--cli", "/nonexistent/docker", "--timeout", "0s"},
		{"doctor", "--cli", "/nonexistent/docker", "--timeout", "500ms"},
		{"doctor", "--cli", "/nonexistent/docker", "--timeout", "1h"},
	}
	var all strings.Builder
	for _, args := range cases {
		code, out, errOut := runCLI(t, "", args...)
		assert.Check(t, is.Equal(code, 2), "%q", args)
		if args[0] == "run" || args[0] == "eval" {
			// run and eval print one result object for every verdict.
			var res map[string]any
			assert.Check(t, json.Unmarshal([]byte(out), &res), "%q: %s", args, out)
			assert.Check(t, is.Equal(res["verdict"], "rejected"), "%q", args)
		} else {
			assert.Check(t, is.Equal(out, ""), "%q", args)
		}
		assert.Check(t, is.Equal(strings.Count(errOut, "\n"), 1), "%q: one line on stderr: %q", args, errOut)
		all.WriteString(strings.Join(args, " ") + "\n  " + errOut)
	}
	golden.Assert(t, all.String(), "flag-errors.golden")
}

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
// openPTY opens a pseudo-terminal pair: the master side and the terminal.
// readUntil reads the terminal's side of a pty in the background until
// what it read contains want (or the read fails), and then sends it all.
func readUntil(ptmx *os.File, want string) <-chan string {
	seen := make(chan string, 1)
	go func() {
		var all []byte
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			all = append(all, buf[:n]...)
			if err != nil || bytes.Contains(all, []byte(want)) {
				seen <- string(all)
				return
			}
		}
	}()
	return seen
}

func openPTY(t *testing.T) (ptmx, tty *os.File) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("SKIPPED, NOT PASSED: no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	assert.NilError(t, unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0))
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	assert.NilError(t, err)
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR, 0)
	assert.NilError(t, err)
	t.Cleanup(func() { tty.Close() })
	return ptmx, tty
}

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

func TestVersion(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI(t, "", "version")
	assert.Equal(t, code, 0)
	assert.Assert(t, strings.HasPrefix(out, "synapse-isolation "), out)
	assert.Assert(t, is.Contains(out, "protocol v7"))

	code, flagOut, _ := runCLI(t, "", "--version")
	assert.Equal(t, code, 0)
	firstLine, _, _ := strings.Cut(out, "\n")
	assert.Equal(t, flagOut, firstLine+"\n", "--version is the version command's first line")

	code, js, _ := runCLI(t, "", "version", "--format", "json")
	assert.Equal(t, code, 0)
	var v buildVersion
	assert.NilError(t, json.Unmarshal([]byte(js), &v))
	assert.DeepEqual(t, v, readBuildVersion())
	assert.Equal(t, v.Protocol, 7)
}

func TestHelpConventions(t *testing.T) {
	t.Parallel()
	for _, cmd := range commandNames() {
		t.Run(cmd, func(t *testing.T) {
			code, viaHelp, _ := runCLI(t, "", "help", cmd)
			assert.Equal(t, code, 0)
			code, viaFlag, _ := runCLI(t, "", cmd, "-h")
			assert.Equal(t, code, 0)
			assert.Equal(t, viaHelp, viaFlag)
			assert.Assert(t, is.Contains(viaFlag, "synapse-isolation "+cmd+" - "))
		})
	}
}

func TestCompletionAndMan(t *testing.T) {
	t.Parallel()
	for shell, want := range map[string]string{
		"bash": "complete -o bashdefault -o default -F _synapse_isolation synapse-isolation",
		"zsh":  "compdef _synapse_isolation synapse-isolation",
		"fish": "complete -c synapse-isolation -n '__synapse_isolation_at \\'\\'' -a run -d",
	} {
		t.Run(shell, func(t *testing.T) {
			code, out, _ := runCLI(t, "", "completion", shell)
			assert.Equal(t, code, 0)
			assert.Assert(t, is.Contains(out, want))
		})
	}
	code, _, errOut := runCLI(t, "", "completion", "tcsh")
	assert.Equal(t, code, 2)
	assert.Equal(t, errOut, "synapse-isolation: completion: unknown shell \"tcsh\" (bash, zsh or fish)\n")

	code, man, _ := runCLI(t, "", "man")
	assert.Equal(t, code, 0)
	assert.Assert(t, strings.HasPrefix(man, ".nh\n.TH synapse-isolation 1"), man[:40])
	for _, cmd := range commandNames() {
		assert.Assert(t, is.Contains(man, "\n.SH "+cmd+"\n"), cmd)
	}
	// Placeholders in angle brackets survive; the sections scripts and
	// new users look for are there.
	visible := []string{"sha256:<64 hex>", "synapse-iso-<run id>", "EXIT STATUS", "ENVIRONMENT", "EXAMPLES",
		"SYNAPSE_IMAGE", "DOCKER_HOST", "DOCKER_CONFIG", "sandbox_failure", "124", "137"}
	for _, s := range visible {
		assert.Check(t, is.Contains(man, s))
	}
	if _, err := exec.LookPath("man"); err == nil {
		// A real man renders it without complaint, placeholders included.
		cmd := exec.Command("man", "-l", "-")
		cmd.Stdin = strings.NewReader(man)
		cmd.Env = append(os.Environ(), "MANWIDTH=80", "MAN_KEEP_FORMATTING=0")
		out, err := cmd.CombinedOutput()
		assert.NilError(t, err, string(out))
		assert.Assert(t, is.Contains(string(out), "synapse-isolation"))
		// Plain text: no overstrike bold, one space for any run of blanks.
		text := strings.Join(strings.Fields(regexp.MustCompile(".\b").ReplaceAllString(string(out), "")), " ")
		for _, s := range visible {
			assert.Check(t, strings.Contains(text, s), "rendered page lacks %q", s)
		}
	}

	// run --help lists the exit statuses scripts depend on.
	code, help, _ := runCLI(t, "", "run", "--help")
	assert.Equal(t, code, 0)
	for _, s := range []string{"Exit status:", "  0  ok ", "  3  sandbox_failure ", "124  timeout ", "125  engine_failure ", "137  oom "} {
		assert.Check(t, is.Contains(help, s))
	}
}

// fakeDockerOnPath is useFakeDocker's environment with the fake first on
// its PATH as docker, for commands that take the default CLI (argv asks
// the image's labels).
func fakeDockerOnPath(t *testing.T, mode string) []string {
	t.Helper()
	self, _, env := useFakeDocker(t, mode)
	dir := t.TempDir()
	assert.NilError(t, os.Symlink(self, dir+"/docker"))
	return append(env, "PATH="+dir+":"+os.Getenv("PATH"))
}

// useFakeDocker makes this test binary the docker CLI of the commands the
// test runs, in mode, with a fresh state directory; it returns the binary
// to pass as --cli, the state directory and the environment to run the
// CLI with (the fake reads its mode from the client's environment).
func useFakeDocker(t *testing.T, mode string) (self, state string, env []string) {
	t.Helper()
	self, err := os.Executable()
	assert.NilError(t, err)
	state = t.TempDir()
	env = append(os.Environ(), fakedocker.EnvMode+"="+mode, fakedocker.EnvState+"="+state, "DOCKER_CONFIG="+t.TempDir(),
		// Under -race a binary sleeps 1s at exit by default; the fake is one.
		"GORACE=atexit_sleep_ms=0")
	return self, state, env
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

// TestRunExitCodes drives `run` through the fake docker for every verdict.
func TestRunExitCodes(t *testing.T) {
	t.Parallel()
	for mode, want := range map[string]struct {
		code    int
		verdict string
	}{
		"ok":                {0, "ok"},
		"program-error":     {1, "program_error"},
		"malformed":         {3, "sandbox_failure"},
		"nonzero-valid":     {3, "sandbox_failure"},
		"hang":              {124, "timeout"},
		"exit125":           {125, "engine_failure"},
		"warning":           {125, "engine_failure"},
		"exit137-oom":       {137, "oom"},
		"exit137-kill":      {3, "sandbox_failure"},
		"command-not-found": {127, "command_not_found"},
	} {
		// Only the fake that never answers meets the deadline; every other
		// answer must not depend on how fast a loaded machine starts the fake
		// (under -race a 2 s deadline once passed before an exit 137 was read).
		timeout := "60s"
		if want.verdict == "timeout" {
			timeout = "2s"
		}
		self, _, env := useFakeDocker(t, mode)
		code, out, errOut := runCLIEnv(t, env, "", "run", "--image", testImage, "--cli", self, "--timeout", timeout, "--code", "1+2")
		assert.Check(t, is.Equal(code, want.code), "%s: %s", mode, errOut)
		var res struct {
			Verdict  string `json:"verdict"`
			ExitCode int    `json:"exit_code"`
		}
		assert.Check(t, json.Unmarshal([]byte(out), &res), "%s: %s", mode, out)
		assert.Check(t, is.Equal(res.Verdict, want.verdict), mode)
		assert.Check(t, is.Equal(res.ExitCode, want.code), mode)
		assert.Check(t, (errOut == "") == (want.code == 0), "%s: one line on stderr for every failure: %q", mode, errOut)
		assert.Check(t, strings.Count(errOut, "\n") == map[bool]int{true: 0, false: 1}[want.code == 0], "%s: %q", mode, errOut)
	}
}

func TestExitCodeOfSignals(t *testing.T) {
	t.Parallel()
	for sig, want := range map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143} {
		err := &isolation.Error{Verdict: isolation.Interrupted, Err: &signalError{sig: sig}}
		assert.Equal(t, exitCode(err), want)
	}
	assert.Equal(t, exitCode(&limits.FieldError{Field: "memory", Msg: "x"}), 2)
	assert.Equal(t, exitCode(&isolation.Error{Verdict: isolation.OOM, Err: os.ErrClosed}), 137)
}

// TestVersionWithoutVCS: a build without VCS stamping says "unknown".
func TestVersionWithoutVCS(t *testing.T) {
	t.Parallel()
	v := buildVersion{Version: "(devel)", Protocol: 2, Go: "go1.26.8"}
	assert.Equal(t, v.String(), "(devel) (protocol v2, revision unknown, go1.26.8)")
	v.Revision, v.Modified = "abc123", true
	assert.Equal(t, v.String(), "(devel) (protocol v2, revision abc123 (modified), go1.26.8)")
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
