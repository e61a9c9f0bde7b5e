package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/removal"
	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
)

func TestMain(m *testing.M) {
	if code, ok := removal.Reap(os.Args, os.Stdin); ok {
		os.Exit(code) // the reaper of a run a test started
	}
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
	for _, cmd := range newApp(&session{}).VisibleCommands() {
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

// openPTY opens a pseudo-terminal pair: the master side and the terminal.
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

func TestVersion(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI(t, "", "version")
	assert.Equal(t, code, 0)
	assert.Assert(t, strings.HasPrefix(out, "synapse-isolation "), out)
	assert.Assert(t, is.Contains(out, "protocol v8"))

	code, flagOut, _ := runCLI(t, "", "--version")
	assert.Equal(t, code, 0)
	firstLine, _, _ := strings.Cut(out, "\n")
	assert.Equal(t, flagOut, firstLine+"\n", "--version is the version command's first line")

	code, js, _ := runCLI(t, "", "version", "--format", "json")
	assert.Equal(t, code, 0)
	var v buildVersion
	assert.NilError(t, json.Unmarshal([]byte(js), &v))
	assert.DeepEqual(t, v, readBuildVersion())
	assert.Equal(t, v.Protocol, 8)
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

// TestVersionWithoutVCS: a build without VCS stamping says "unknown".
func TestVersionWithoutVCS(t *testing.T) {
	t.Parallel()
	v := buildVersion{Version: "(devel)", Protocol: 2, Go: "go1.26.8"}
	assert.Equal(t, v.String(), "(devel) (protocol v2, revision unknown, go1.26.8)")
	v.Revision, v.Modified = "abc123", true
	assert.Equal(t, v.String(), "(devel) (protocol v2, revision abc123 (modified), go1.26.8)")
}
