package tests

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
)

// sshEngine is this machine's engine reached over SSH, through a private
// sshd the suite starts for itself: its own port on loopback, host key,
// authorized key and config; the machine's own sshd is never started or
// changed. The docker CLI reaches it through an `ssh` wrapper on PATH
// that uses the suite's client config.
type sshEngine struct {
	dir       string
	cmd       *exec.Cmd
	context   string // a connection per docker call
	contextCM string // connections shared through an ssh ControlMaster
}

const sshHost = "synapse-ssh-engine"

var (
	sshEng  *sshEngine
	sshErr  error
	sshOnce sync.Once
)

// needSSH starts the private sshd once, or skips loudly (fails under
// CI=true, where scripts/test.sh installs openssh-server).
// sshMu keeps the SSH engine's tests apart, the suite's other tests
// running beside them: one of them kills every ssh client of the suite's
// config, which the other's runs use.
var sshMu sync.Mutex

// sshOneAtATime holds sshMu until the test ends.
func sshOneAtATime(t testing.TB) {
	sshMu.Lock()
	t.Cleanup(sshMu.Unlock)
}

func needSSH(t testing.TB) *sshEngine {
	t.Helper()
	sshOnce.Do(func() { sshEng, sshErr = startSSH() })
	if sshErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and the SSH engine did not start: %v", sshErr)
		}
		t.Skipf("SKIPPED, NOT PASSED: no SSH engine: %v", sshErr)
	}
	return sshEng
}

func startSSH() (*sshEngine, error) {
	for _, bin := range []string{"/usr/sbin/sshd", "ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(bin); err != nil {
			return nil, fmt.Errorf("%s: %v (openssh-server from Debian's packages)", bin, err)
		}
	}
	dir, err := os.MkdirTemp("", "synapse-ssh")
	if err != nil {
		return nil, err
	}
	e := &sshEngine{dir: dir, context: "synapse-ssh", contextCM: "synapse-ssh-cm"}
	for _, k := range []string{"host_key", "client_key"} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, k)).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("ssh-keygen: %v: %s", err, out)
		}
	}
	pub, err := os.ReadFile(filepath.Join(dir, "client_key.pub"))
	if err != nil {
		return nil, err
	}
	hostPub, err := os.ReadFile(filepath.Join(dir, "host_key.pub"))
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	files := map[string]string{
		"authorized_keys": string(pub),
		"known_hosts":     fmt.Sprintf("[127.0.0.1]:%d %s", port, hostPub),
		"sshd_config": fmt.Sprintf("Port %d\nListenAddress 127.0.0.1\nHostKey %s\nAuthorizedKeysFile %s\nPidFile %s\n"+
			"PermitRootLogin prohibit-password\nPasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n",
			port, filepath.Join(dir, "host_key"), filepath.Join(dir, "authorized_keys"), filepath.Join(dir, "sshd.pid")),
		"ssh_config": fmt.Sprintf("Host %s-cm\n  ControlMaster auto\n  ControlPath %s\n  ControlPersist 60\n"+
			"Host %s %s-cm\n  HostName 127.0.0.1\n  Port %d\n  User root\n  IdentityFile %s\n  IdentitiesOnly yes\n"+
			"  UserKnownHostsFile %s\n  StrictHostKeyChecking yes\n  BatchMode yes\n",
			sshHost, filepath.Join(dir, "cm-%C"), sshHost, sshHost, port, filepath.Join(dir, "client_key"), filepath.Join(dir, "known_hosts")),
		"bin/ssh": "#!/bin/sh\nexec /usr/bin/ssh -F " + filepath.Join(dir, "ssh_config") + " \"$@\"\n",
	}
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		return nil, err
	}
	for name, content := range files {
		write := func(path string, data []byte) error { return os.WriteFile(path, data, 0o600) }
		if name == "bin/ssh" {
			write = fakedocker.WriteExecutable
		}
		if err := write(filepath.Join(dir, name), []byte(content)); err != nil {
			return nil, err
		}
	}
	// sshd's privilege separation directory; the package's own sshd
	// would make it at start, and this one is never started.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		return nil, err
	}
	e.cmd = exec.Command("/usr/sbin/sshd", "-D", "-e", "-f", filepath.Join(dir, "sshd_config"))
	var log bytes.Buffer
	e.cmd.Stderr = &log
	if err := e.cmd.Start(); err != nil {
		return nil, err
	}
	for name, host := range map[string]string{e.context: sshHost, e.contextCM: sshHost + "-cm"} {
		ctx := exec.Command("docker", "context", "create", name, "--docker", "host=ssh://"+host)
		ctx.Env = append(os.Environ(), e.env()...)
		if out, err := ctx.CombinedOutput(); err != nil {
			e.stop()
			return nil, fmt.Errorf("docker context create: %v: %s", err, out)
		}
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		v := exec.Command("docker", "--context", e.context, "version", "--format", "{{.Server.Version}}")
		v.Env = append(os.Environ(), e.env()...)
		out, err := v.CombinedOutput()
		if err == nil {
			return e, nil
		}
		if time.Now().After(deadline) {
			e.stop()
			return nil, fmt.Errorf("docker over ssh: %v: %s; sshd: %s", err, out, log.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// env makes the tool and docker see the context and the ssh wrapper.
func (e *sshEngine) env() []string {
	return []string{"DOCKER_CONFIG=" + filepath.Join(e.dir, "docker"), "PATH=" + filepath.Join(e.dir, "bin") + ":" + os.Getenv("PATH")}
}

func (e *sshEngine) stop() {
	// The ControlMaster outlives the docker calls that started it.
	_ = exec.Command("pkill", "-f", "ssh -F "+filepath.Join(e.dir, "ssh_config")).Run()
	_ = exec.Command("pkill", "-f", "ssh: "+filepath.Join(e.dir, "cm-")).Run()
	if e.cmd != nil && e.cmd.Process != nil {
		_ = e.cmd.Process.Signal(syscall.SIGTERM)
		_ = e.cmd.Wait()
	}
	_ = os.RemoveAll(e.dir)
}

// killClients kills every ssh client of the suite's config: the docker
// CLI's transports and the ControlMaster, which renames itself
// "ssh: PATH [mux]".
func (e *sshEngine) killClients(t *testing.T) {
	t.Helper()
	killed := false
	for _, pattern := range []string{"ssh -F " + filepath.Join(e.dir, "ssh_config"), "ssh: " + filepath.Join(e.dir, "cm-")} {
		// pkill exits 1 when nothing matched.
		if exec.Command("pkill", "-KILL", "-f", pattern).Run() == nil {
			killed = true
		}
	}
	assert.Assert(t, killed, "no ssh client to kill")
}

// stopSSH is called by TestMain after the tests.
func stopSSH() {
	if sshEng != nil {
		sshEng.stop()
	}
}

// TestSSHEngine: run, batch (with the local engine in the same batch) and
// gc work over the docker CLI's ssh:// transport.
func TestSSHEngine(t *testing.T) {
	needEngine(t)
	e := needSSH(t)
	t.Parallel()
	sshOneAtATime(t)
	// A minute, not the default 10 s: over ssh, beside the rest of the
	// suite, a container's start has taken longer than 10 s.
	r := tool(t, e.env(), "", "run", "--context", e.context, "--image", refImage, "--timeout", "60s", "--code", "1+2")
	assert.Equal(t, r.code, 0, r.stderr)
	assert.Equal(t, string(r.res.Result), "3")
	assert.Assert(t, r.res.Sandboxed)
	assertRunGone(t, r.res.RunID)

	in := strings.Repeat(`{"source": "6 * 7"}`+"\n", 4)
	r = tool(t, e.env(), in, "batch", "--image", refImage, "--timeout", "60s", "--parallel", "2", "--context", "default", "--context", e.context)
	assert.Equal(t, r.code, 0, r.stderr)
	for _, res := range parseBatch(t, r.stdout) {
		assert.Check(t, is.Equal(res.Verdict, "ok"))
		assertRunGone(t, res.RunID)
	}

	holdGC(t)
	r = tool(t, e.env(), "", "gc", "--context", e.context)
	assert.Equal(t, r.code, 0, r.stderr)
}

// TestSSHTransportKilledMidRun: when the ssh transport of a run dies, the
// run ends with docker's failure (125), by the transport's death, not at
// its own 60 s timeout (about a second later on an idle machine; the
// removal over a fresh connection is bounded at 30 s), and its
// container is removed over a fresh connection.
func TestSSHTransportKilledMidRun(t *testing.T) {
	needEngine(t)
	e := needSSH(t)
	t.Parallel()
	sshOneAtATime(t)
	for _, context := range []string{e.context, e.contextCM} {
		t.Run(context, func(t *testing.T) { killTransportMidRun(t, e, context) })
	}
}

// killTransportMidRun kills every ssh client of the suite's config, the
// ControlMaster included, while a run's program spins.
func killTransportMidRun(t *testing.T, e *sshEngine, context string) {
	cmd := exec.Command(toolBin, "run", "--context", context, "--image", refImage, "--timeout", "60s", "--code", "while True:\n  pass")
	cmd.Env = append(os.Environ(), e.env()...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	assert.NilError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	// Wait for the program to spin, then kill every ssh client of this
	// run: the docker CLI's transport. A loaded machine starts a container
	// over ssh slowly: the bound is generous, and a run that ended first
	// says why.
	var id string
	deadline := time.Now().Add(60 * time.Second)
	for id == "" && time.Now().Before(deadline) {
		select {
		case err := <-waited:
			t.Fatalf("the run ended (%v) before its container was seen running: %s", err, stderr.String())
		default:
		}
		out, _ := exec.Command("docker", "ps", "--quiet", "--no-trunc", "--filter", "status=running", "--filter", "name=^/?synapse-iso-").Output()
		for _, c := range strings.Fields(string(out)) {
			lbl, _ := exec.Command("docker", "inspect", "--format", `{{index .Config.Labels "io.synapse-isolation.owner"}}`, c).Output()
			if strings.Contains(string(lbl), fmt.Sprintf(":%d:", cmd.Process.Pid)) {
				id = c
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if id == "" {
		_ = cmd.Process.Kill()
		t.Fatalf("the run's container was not seen running within 60 s (%v): %s", <-waited, stderr.String())
	}
	name, _ := exec.Command("docker", "inspect", "--format", "{{.Name}}", id).Output()
	waitBusy(t, strings.TrimPrefix(strings.TrimSpace(string(name)), "/"))
	killed := time.Now()
	e.killClients(t)
	err := <-waited
	took := time.Since(killed)
	t.Logf("run ended %s after its transport was killed: %s", took.Round(time.Millisecond), strings.TrimSpace(stderr.String()))
	var ee *exec.ExitError
	assert.Assert(t, errors.As(err, &ee), "%v", err)
	assert.Check(t, is.Equal(ee.ExitCode(), 125), stderr.String())
	// By construction: the client's end plus the removal's 30 s bound,
	// well inside the run's own timeout, which would end it otherwise.
	assert.Check(t, took < 60*time.Second, "took %s: the run's own timeout, not its transport's death, ended it", took)
	assertNoneListed(t, "id="+id)
}

// BenchmarkSSHRunCost measures, over ssh, what the supervisor adds to a
// bare docker run of the same argv and request, with and without a
// ControlMaster, in alternating pairs: a measure, reported, not a test
// (scripts/bench/README.md quotes it).
func BenchmarkSSHRunCost(b *testing.B) {
	needEngine(b)
	e := needSSH(b)
	const pairs = 5
	for _, context := range []string{e.context, e.contextCM} {
		var viaTool, bare, ratios []float64
		for i := 0; i < pairs; i++ {
			var tm, bm float64
			for _, toolFirst := range []bool{i%2 == 0, i%2 != 0} {
				if toolFirst {
					start := time.Now()
					r := tool(b, e.env(), "", "run", "--context", context, "--image", refImage, "--code", "1+2")
					tm = float64(time.Since(start).Milliseconds())
					assert.Equal(b, r.code, 0, r.stderr)
				} else {
					name := "synapse-iso-bare-" + randomHex()
					argv := argvFor(b, e, context, name)
					c := exec.Command(argv[0], argv[1:]...)
					c.Env = append(os.Environ(), e.env()...)
					c.Stdin = strings.NewReader(`{"source":"1+2"}` + "\n")
					start := time.Now()
					out, err := c.CombinedOutput()
					bm = float64(time.Since(start).Milliseconds())
					assert.NilError(b, err, string(out))
				}
			}
			viaTool, bare, ratios = append(viaTool, tm), append(bare, bm), append(ratios, tm/bm)
		}
		b.Logf("%s: run median %.0f ms, bare docker run median %.0f ms, paired ratio median %.3f (%d pairs)",
			context, medianOf(viaTool), medianOf(bare), medianOf(ratios), pairs)
		b.ReportMetric(medianOf(ratios), context+"-ratio")
	}
}

// argvFor is the argv the tool renders for a run on context, by name.
func argvFor(t testing.TB, e *sshEngine, context, name string) []string {
	t.Helper()
	r := tool(t, e.env(), "", "argv", "--format", "lines", "--context", context, "--image", refImage, "--name", name)
	assert.Equal(t, r.code, 0, r.stderr)
	return strings.Split(strings.TrimSpace(r.stdout), "\n")
}

func medianOf(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
