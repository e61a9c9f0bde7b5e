package tests

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// secondEngine is a Docker daemon the suite starts for itself, beside the
// machine's own, which it never touches: its own socket, data root, exec
// root, pidfile, cgroup parent, config file and bridge (a bridge interface
// it creates and deletes: with --bridge none dockerd would delete the
// machine's docker0). Its config registers two gVisor runtimes, each with
// --network=none as its runtime argument (runsc needs it to start here):
// the project's pinned runsc (scripts/runsc.sh) as currentRunsc, and
// Debian's of release 20221219 as oldRunsc.
type secondEngine struct {
	dir       string // everything of it lives below
	sock      string
	bridge    string
	cgroup    string
	configDir string // DOCKER_CONFIG holding the context below
	context   string
	cmd       *exec.Cmd
	exited    chan error
}

const secondContext = "synapse-second"

// The second engine's runtime names: currentRunsc runs the pinned gVisor
// that $SYNAPSE_RUNSC names (scripts/runsc.sh builds it), oldRunsc runs
// Debian's 2022 runsc, which the tool must refuse.
const (
	currentRunsc = "runsc"
	oldRunsc     = "runsc-debian"
)

// debianRunsc is where Debian's runsc package puts its binary. An absolute
// path, never a PATH lookup, which could find the pinned runsc instead.
const debianRunsc = "/usr/bin/runsc"

var (
	second     *secondEngine
	secondErr  error
	secondOnce sync.Once
)

// needSecondEngine starts the second engine once, or skips loudly (fails
// under CI=true, where every engine test must run).
func needSecondEngine(t interface {
	Helper()
	Skipf(string, ...any)
	Fatalf(string, ...any)
}) *secondEngine {
	t.Helper()
	secondOnce.Do(func() { second, secondErr = startSecondEngine() })
	if secondErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and the second engine did not start: %v", secondErr)
		}
		t.Skipf("SKIPPED, NOT PASSED: no second engine: %v", secondErr)
	}
	return second
}

// env is the environment that makes docker and the tool see the context.
func (e *secondEngine) env() []string { return []string{"DOCKER_CONFIG=" + e.configDir} }

// docker runs the docker CLI against the second engine.
func (e *secondEngine) docker(args ...string) ([]byte, error) {
	cmd := exec.Command("docker", append([]string{"--host", "unix://" + e.sock}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("docker %s: %v: %s", strings.Join(args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return out, nil
}

// storageDrivers are the second engine's storage drivers, in the order
// tried: overlay2, where a container's root is a mount of the image's
// layers, then vfs, which copies the whole image for each container
// (seconds for the Python image) but works on any filesystem.
var storageDrivers = []string{"overlay2", "vfs"}

// startSecondEngine starts the engine on the first storage driver that
// works here.
func startSecondEngine() (*secondEngine, error) {
	var errs []error
	for _, driver := range storageDrivers {
		e, err := startSecondEngineOn(driver)
		if err == nil {
			return e, nil
		}
		errs = append(errs, fmt.Errorf("storage driver %s: %w", driver, err))
	}
	return nil, errors.Join(errs...)
}

func startSecondEngineOn(driver string) (*secondEngine, error) {
	if os.Geteuid() != 0 {
		return nil, errors.New("starting a Docker daemon needs root")
	}
	for _, bin := range []string{"dockerd", "ip"} {
		if _, err := exec.LookPath(bin); err != nil {
			return nil, err
		}
	}
	runtimes, err := runscRuntimes()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "synapse-dockerd-")
	if err != nil {
		return nil, err
	}
	// runsc's sandbox runs as nobody and must reach the data root.
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	id := fmt.Sprintf("%d", os.Getpid()%100000)
	e := &secondEngine{
		dir: dir, sock: filepath.Join(dir, "docker.sock"), bridge: "synbr" + id, cgroup: "synapse-second-" + id,
		configDir: filepath.Join(dir, "client"), context: secondContext, exited: make(chan error, 1),
	}
	fail := func(err error) (*secondEngine, error) {
		e.stop()
		return nil, err
	}
	// A /24 of 10.213/16 picked by pid, unlikely to meet the machine's own networks.
	subnet := fmt.Sprintf("10.213.%d", os.Getpid()%250+1)
	for _, args := range [][]string{
		{"link", "add", e.bridge, "type", "bridge"},
		{"addr", "add", subnet + ".1/24", "dev", e.bridge},
		{"link", "set", e.bridge, "up"},
	} {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			return fail(fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, out))
		}
	}
	config := filepath.Join(dir, "daemon.json")
	js, err := json.Marshal(map[string]any{"runtimes": runtimes})
	if err != nil {
		return fail(err)
	}
	if err := os.WriteFile(config, js, 0o644); err != nil {
		return fail(err)
	}
	logf, err := os.Create(filepath.Join(dir, "dockerd.log"))
	if err != nil {
		return fail(err)
	}
	e.cmd = exec.Command("dockerd",
		"--host", "unix://"+e.sock,
		"--data-root", filepath.Join(dir, "data"),
		"--exec-root", filepath.Join(dir, "exec"),
		"--pidfile", filepath.Join(dir, "docker.pid"),
		"--config-file", config,
		"--bridge", e.bridge,
		"--iptables=false", "--ip-masq=false",
		"--cgroup-parent", e.cgroup,
		"--storage-driver", driver,
	)
	e.cmd.Stdout, e.cmd.Stderr = logf, logf
	e.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := e.cmd.Start(); err != nil {
		logf.Close()
		return fail(err)
	}
	go func() { e.exited <- e.cmd.Wait(); logf.Close() }()
	ready := false
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if _, err := e.docker("version", "--format", "{{.Server.Version}}"); err == nil {
			ready = true
			break
		}
		select {
		case err := <-e.exited:
			e.exited <- err
			log, _ := os.ReadFile(filepath.Join(dir, "dockerd.log"))
			return fail(fmt.Errorf("dockerd exited: %v: %s", err, tail(log, 2000)))
		default:
		}
	}
	if !ready {
		log, _ := os.ReadFile(filepath.Join(dir, "dockerd.log"))
		return fail(fmt.Errorf("dockerd not ready after 60 s: %s", tail(log, 2000)))
	}
	// A client config of its own holds the context, so the user's
	// ~/.docker is never written.
	ctxCmd := exec.Command("docker", "context", "create", e.context, "--docker", "host=unix://"+e.sock)
	ctxCmd.Env = append(os.Environ(), e.env()...)
	if out, err := ctxCmd.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("docker context create: %v: %s", err, out))
	}
	// The engine starts with no images; give it the reference image by
	// ID, unchanged (docker save and load keep it).
	save := exec.Command("docker", "save", refImage)
	load := exec.Command("docker", "--host", "unix://"+e.sock, "load", "--quiet")
	pipe, err := save.StdoutPipe()
	if err != nil {
		return fail(err)
	}
	load.Stdin = pipe
	if err := save.Start(); err != nil {
		return fail(err)
	}
	out, lerr := load.CombinedOutput()
	serr := save.Wait()
	if lerr != nil || serr != nil {
		return fail(fmt.Errorf("moving the image: save %v, load %v: %s", serr, lerr, out))
	}
	if got, err := e.docker("image", "inspect", "--format", "{{.Id}}", refImage); err != nil || strings.TrimSpace(string(got)) != refImage {
		return fail(fmt.Errorf("the second engine has no %s after load: %v %s", refImage, err, got))
	}
	return e, nil
}

// runscRuntimes is the daemon.json "runtimes" of the two runsc binaries:
// the pinned one from $SYNAPSE_RUNSC and Debian's, each required to be an
// absolute path to an executable, and not one file under two names.
func runscRuntimes() (map[string]any, error) {
	pinned := os.Getenv("SYNAPSE_RUNSC")
	if pinned == "" {
		return nil, errors.New("SYNAPSE_RUNSC is not set (scripts/test.sh sets it to the pinned runsc that scripts/runsc.sh builds)")
	}
	if !filepath.IsAbs(pinned) {
		return nil, fmt.Errorf("SYNAPSE_RUNSC=%s is not an absolute path", pinned)
	}
	var infos []os.FileInfo
	for _, path := range []string{pinned, debianRunsc} {
		fi, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("%v (scripts/runsc.sh builds the pinned runsc; scripts/test.sh installs Debian's runsc package)", err)
		}
		if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			return nil, fmt.Errorf("%s is not an executable file", path)
		}
		infos = append(infos, fi)
	}
	if os.SameFile(infos[0], infos[1]) {
		return nil, fmt.Errorf("SYNAPSE_RUNSC=%s is Debian's runsc, not the pinned one", pinned)
	}
	runtime := func(path string) map[string]any {
		return map[string]any{"path": path, "runtimeArgs": []string{"--network=none"}}
	}
	return map[string]any{currentRunsc: runtime(pinned), oldRunsc: runtime(debianRunsc)}, nil
}

// stop removes the engine's containers, stops the daemon and waits for it
// to exit, unmounts what it left mounted, deletes its bridge and cgroups
// and its directory. It is safe on a half-started engine.
func (e *secondEngine) stop() {
	if e.cmd != nil && e.cmd.Process != nil {
		if ids, err := e.docker("ps", "--all", "--quiet"); err == nil && len(bytes.TrimSpace(ids)) > 0 {
			_, _ = e.docker(append([]string{"rm", "--force"}, strings.Fields(string(ids))...)...)
		}
		_ = e.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-e.exited:
		case <-time.After(30 * time.Second):
			_ = syscall.Kill(-e.cmd.Process.Pid, syscall.SIGKILL)
			<-e.exited
		}
		// Its managed containerd shares the process group.
		_ = syscall.Kill(-e.cmd.Process.Pid, syscall.SIGKILL)
	}
	if mounts, err := os.ReadFile("/proc/self/mounts"); err == nil {
		var ours []string
		for _, line := range strings.Split(string(mounts), "\n") {
			if f := strings.Fields(line); len(f) > 1 && strings.HasPrefix(f[1], e.dir+"/") {
				ours = append(ours, f[1])
			}
		}
		for i := len(ours) - 1; i >= 0; i-- { // innermost first
			_ = syscall.Unmount(ours[i], syscall.MNT_DETACH)
		}
	}
	_ = exec.Command("ip", "link", "delete", e.bridge).Run()
	if dirs, err := filepath.Glob("/sys/fs/cgroup/*/" + e.cgroup); err == nil {
		for _, d := range dirs {
			_ = os.Remove(d)
		}
	}
	_ = os.RemoveAll(e.dir)
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(bytes.TrimSpace(b))
}

// stopSecondEngine is called by TestMain after the tests.
func stopSecondEngine() {
	if second != nil {
		second.stop()
	}
}
