package isolation

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/synapse-lang/synapse-isolation/dockerargs"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/capture"
)

// client runs docker CLI subcommands other than `run`: rm, ps, events,
// info. Every call targets the engine it was made for.
type client struct {
	path    string   // resolved CLI binary
	context string   // --context, if any
	env     []string // the CLI's environment
}

// newClient resolves the engine's CLI binary on the PATH of its environment.
func newClient(e Engine) (*client, error) {
	env := e.environ()
	bin := e.CLI
	if bin == "" {
		bin = dockerargs.DefaultCLI
	}
	path, err := lookPath(bin, env)
	if err != nil {
		return nil, &Error{Verdict: EngineFailure, Err: err}
	}
	return &client{path: path, context: e.Context, env: env}, nil
}

// environ is the environment the engine's CLI gets, and where the
// profile's cache directory is read from: Env, or this process's.
func (e Engine) environ() []string {
	if e.Env == nil {
		return os.Environ()
	}
	return e.Env
}

// lookPath finds bin on the PATH of env (not of this process), so a
// caller-supplied environment decides which docker runs. Like os/exec, it
// refuses a match found through a relative PATH entry (exec.ErrDot): the
// bare name it yields would be resolved again, against this process's PATH
// and working directory, possibly to another binary.
func lookPath(bin string, env []string) (string, error) {
	if strings.Contains(bin, "/") {
		if fi, err := os.Stat(bin); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return "", fmt.Errorf("docker CLI %q: not an executable file", bin)
		}
		return bin, nil
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, bin)
		if fi, err := os.Stat(p); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			continue
		}
		if !filepath.IsAbs(p) {
			return "", fmt.Errorf("docker CLI %q: found as %s through a relative PATH entry: %w", bin, p, exec.ErrDot)
		}
		return p, nil
	}
	return "", fmt.Errorf("docker CLI %q: not found in PATH", bin)
}

// maxAux bounds what an auxiliary docker command may print.
const maxAux = 256 << 10

// withContext is args for this client's engine: --context first, if any.
func (c *client) withContext(args ...string) []string {
	if c.context == "" {
		return args
	}
	return append([]string{"--context", c.context}, args...)
}

// output runs `docker [--context C] args...` and returns its stdout,
// bounded. A nonzero exit is an error that quotes docker's stderr.
func (c *client) output(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, c.path, c.withContext(args...)...)
	cmd.Env = c.env
	stdout := capture.New(maxAux)
	stderr := &stderrWatch{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if stdout.Truncated() {
		return "", fmt.Errorf("docker %s: output larger than %d bytes", args[0], maxAux)
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && stderr.text() != "" {
			return "", fmt.Errorf("docker %s: %w: %s", args[0], err, stderr.text())
		}
		return "", fmt.Errorf("docker %s: %w", args[0], err)
	}
	return string(stdout.Bytes()), nil
}
