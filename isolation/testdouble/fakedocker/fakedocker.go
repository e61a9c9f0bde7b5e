// Package fakedocker is a stand-in for the docker CLI in tests: a test
// binary calls Main from TestMain, and, when its environment asks for it,
// behaves like `docker` in one of several failure modes. Containers are
// files in a state directory, so tests can see what was left behind.
package fakedocker

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/attestation"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// Environment variables that select the fake and its behaviour.
const (
	EnvMode  = "FAKE_DOCKER_MODE"  // what `run` does
	EnvState = "FAKE_DOCKER_STATE" // directory holding containers and the call log
	envChild = "FAKE_DOCKER_LATE_CREATE"
)

// Log is the name of the call log in the state directory: one call per
// line, arguments separated by \x1f.
const Log = "calls.log"

// stdinLog is the name of the file in the state directory that gets every
// byte a container read from its stdin.
const stdinLog = "stdin.log"

// started names the file that records the run id of every container that
// started, one a line: the daemon's record that `events` reads.
const started = "started.log"

// Responses the fake run writes.
const (
	OKResponse  = `{"v":2,"ok":true,"result":3,"result_type":"int","output":"","output_truncated":false,"output_bytes":0}`
	ErrResponse = `{"v":2,"ok":false,"result":null,"output":"","output_truncated":false,"output_bytes":0,"error":{"type":"runtime","message":"boom","line":1,"col":1}}`
)

// Stdin returns every byte the fake's containers read from their stdin.
func Stdin(state string) string {
	b, _ := os.ReadFile(filepath.Join(state, stdinLog))
	return string(b)
}

// Main acts as docker and exits if EnvMode is set; otherwise it returns.
func Main() {
	mode := os.Getenv(EnvMode)
	if mode == "" {
		return
	}
	state := os.Getenv(EnvState)
	if os.Getenv(envChild) != "" {
		lateCreate(state, os.Getenv(envChild))
		os.Exit(0)
	}
	args := os.Args[1:]
	appendLog(state, args)
	if len(args) >= 2 && args[0] == "--context" {
		args = args[2:]
	}
	if len(args) == 0 {
		os.Exit(2)
	}
	switch args[0] {
	case "--version":
		v := "28.2.2"
		if mode == "broken-cli" {
			v = "28.0.1"
		}
		fmt.Printf("Docker version %s, build fake\n", v)
	case "run":
		os.Exit(run(mode, state, args[1:]))
	case "version":
		fmt.Println("20.10.24")
	case "image":
		if mode == "no-image" {
			fmt.Fprintf(os.Stderr, "Error: No such image: %s\n", args[len(args)-1])
			os.Exit(1)
		}
		fmt.Println(args[len(args)-1])
	case "rm":
		// The fake's container IDs are its container names.
		for _, id := range args[2:] {
			if err := os.Remove(filepath.Join(state, "c-"+id)); err != nil {
				fmt.Fprintf(os.Stderr, "Error response from daemon: No such container: %s\n", id)
				os.Exit(1)
			}
			fmt.Println(id)
		}
	case "ps":
		os.WriteFile(filepath.Join(state, "ps-called"), nil, 0o600)
		if mode == "hang-unreachable" || mode == "unreachable" {
			fmt.Fprintln(os.Stderr, "Cannot connect to the Docker daemon at unix:///fake.sock. Is the docker daemon running?")
			os.Exit(1)
		}
		ps(state, args[1:])
	case "events":
		if mode == "exec-oom-events-fail" {
			fmt.Fprintln(os.Stderr, "Cannot connect to the Docker daemon at unix:///fake.sock. Is the docker daemon running?")
			os.Exit(1)
		}
		if (mode == "exit137-oom" || mode == "exec-oom") && strings.Contains(strings.Join(args, " "), "event=oom") {
			fmt.Println("oom")
		}
		if strings.Contains(strings.Join(args, " "), "event=start") && startedRun(state, args) {
			fmt.Println("start")
		}
	default:
		fmt.Fprintf(os.Stderr, "fake docker: unsupported %q\n", args[0])
		os.Exit(2)
	}
	os.Exit(0)
}

func appendFile(path, s string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	f.WriteString(s)
}

// startedRun reports whether a container of the run named by the events
// query's label filter started.
func startedRun(state string, args []string) bool {
	b, _ := os.ReadFile(filepath.Join(state, started))
	for i, a := range args {
		if a == "--filter" && i+1 < len(args) && strings.HasPrefix(args[i+1], "label="+labelRunID) {
			id := strings.TrimPrefix(args[i+1], "label="+labelRunID)
			return strings.Contains("\n"+string(b), "\n"+id+"\n")
		}
	}
	return false
}

func appendLog(state string, args []string) {
	f, err := os.OpenFile(filepath.Join(state, Log), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintln(f, strings.Join(args, "\x1f"))
}

// Calls returns the logged calls.
func Calls(state string) [][]string {
	b, _ := os.ReadFile(filepath.Join(state, Log))
	var out [][]string
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if line != "" {
			out = append(out, strings.Split(line, "\x1f"))
		}
	}
	return out
}

// Containers lists the containers present in the state directory.
func Containers(state string) []string {
	m, _ := filepath.Glob(filepath.Join(state, "c-*"))
	var out []string
	for _, p := range m {
		if !strings.HasSuffix(p, ".tmp") { // a create that never completed
			out = append(out, strings.TrimPrefix(filepath.Base(p), "c-"))
		}
	}
	return out
}

func flagValue(args []string, flag string) string {
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// Label keys (dockerargs.LabelRunID, LabelOwner) with their "=".
const (
	labelRunID = "io.synapse-isolation.run-id="
	labelOwner = "io.synapse-isolation.owner="
)

func run(mode, state string, args []string) int {
	name := flagValue(args, "--name")
	runID, owner := "", ""
	for i, a := range args {
		if a == "--label" && i+1 < len(args) && strings.HasPrefix(args[i+1], labelRunID) {
			runID = strings.TrimPrefix(args[i+1], labelRunID)
		}
		if a == "--label" && i+1 < len(args) && strings.HasPrefix(args[i+1], labelOwner) {
			owner = strings.TrimPrefix(args[i+1], labelOwner)
		}
	}
	mem, _ := limits.ParseBytes(flagValue(args, "--memory"))
	sc := attestation.Perfect(int64(mem))
	respond := func(resp string) { fmt.Println(resp) }
	container := filepath.Join(state, "c-"+name)
	if _, err := os.Stat(container); err == nil {
		fmt.Fprintf(os.Stderr, "docker: Error response from daemon: Conflict. The container name \"/%s\" is already in use.\n", name)
		return 125
	}
	if mode == "unreachable" {
		// A daemon that cannot be reached: docker's own failure, no container.
		fmt.Fprintln(os.Stderr, "docker: Cannot connect to the Docker daemon at unix:///fake.sock. Is the docker daemon running?")
		return 125
	}
	if mode == "no-container" {
		// A client that fails before any container exists (an unknown
		// context, say), with a status that is not docker's own 125.
		fmt.Fprintln(os.Stderr, `context "nope": context not found: no such file or directory`)
		return 1
	}
	writeContainer(container, runID+"\t0\trunning\t"+owner)
	done := func() { os.Remove(container) } // what --rm does on exit
	if !strings.HasPrefix(mode, "exit12") {
		appendFile(filepath.Join(state, started), runID+"\n")
	}
	switch mode {
	case "exit125", "exit126", "exit127":
		fmt.Fprintf(os.Stderr, "docker: Error response from daemon: failure in mode %s.\nSee 'docker run --help'.\n", mode)
		var code int
		fmt.Sscanf(mode, "exit%d", &code)
		return code // the container was never created or never started: left for cleanup
	case "warning":
		// Docker warns before the container starts.
		fmt.Fprintln(os.Stderr, "WARNING: Your kernel does not support swap limit capabilities or the cgroup is not mounted. Memory limited without swap.")
	}
	// The hello, before anything is read from stdin, as the runner writes it.
	switch mode {
	case "silent", "v1":
	case "hello-endless-line":
		os.Stdout.WriteString(`{"v":2,"selfcheck":{`)
		time.Sleep(time.Hour)
	case "hello-not-json":
		fmt.Println("hello, host")
	case "hello-oversized":
		os.Stdout.WriteString(`{"v":2,"selfcheck":{"env_keys":["` + strings.Repeat("K", 20<<10) + `"]}}` + "\n")
	case "hello-weak", "weak-runtime":
		os.Stdout.WriteString(attestation.Hello(attestation.Weak()))
	case "wrong-memory":
		os.Stdout.WriteString(attestation.Hello(attestation.Perfect(512 << 20)))
	case "hello-twice":
		os.Stdout.WriteString(attestation.Hello(sc) + attestation.Hello(sc))
	case "hello-then-exit":
		os.Stdout.WriteString(attestation.Hello(sc))
		done()
		return 0
	default:
		os.Stdout.WriteString(attestation.Hello(sc))
	}
	if mode == "silent" {
		time.Sleep(time.Hour)
	}
	in, _ := io.ReadAll(os.Stdin)
	appendFile(filepath.Join(state, stdinLog), string(in))
	if mode == "by-source" {
		// The request's source names the mode, so one batch can mix them.
		var req struct{ Source string }
		_ = json.Unmarshal(in, &req)
		mode = req.Source
	}
	switch mode {
	case "ok", "hello-twice", "hello-weak", "hello-not-json", "hello-oversized", "weak-runtime", "wrong-memory":
		respond(OKResponse)
	case "v1":
		// A runner of protocol v1: no hello; it answers its request.
		fmt.Println(strings.Replace(OKResponse, `"v":2`, `"v":1`, 1))
	case "slow":
		time.Sleep(400 * time.Millisecond)
		respond(OKResponse)
	case "program-error":
		respond(ErrResponse)
	case "hang", "hang-unreachable":
		time.Sleep(time.Hour)
	case "late-create":
		// The client dies, the create lands later: a detached process
		// creates the container after the supervisor's first listing.
		os.Remove(container)
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), envChild+"="+name+"\t"+runID)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		_ = cmd.Start()
		time.Sleep(time.Hour)
	case "flood":
		chunk := strings.Repeat("x", 64<<10)
		for {
			if _, err := os.Stdout.WriteString(chunk); err != nil {
				return 1
			}
		}
	case "warning":
		respond(OKResponse)
	case "two-json":
		fmt.Println(OKResponse)
		fmt.Println(OKResponse)
	case "malformed":
		fmt.Println(`{"v":2,"ok":tru`)
	case "missing":
	case "big-output":
		fmt.Printf(`{"v":2,"ok":true,"result":null,"output":"%s","output_truncated":false,"output_bytes":%d}`+"\n",
			strings.Repeat("y", 64<<10+1), 64<<10+1)
	case "big-response":
		fmt.Printf(`{"v":2,"ok":true,"result":"%s","output":"","output_truncated":false,"output_bytes":0}`+"\n",
			strings.Repeat("z", 1<<20))
	case "client-dies":
		// The client fails (its transport died) and the container runs on.
		fmt.Fprintln(os.Stderr, "error during connect: the ssh command has exited with signal: killed")
		return 1
	case "nonzero-valid":
		respond(OKResponse)
		done()
		return 1
	case "exit137-oom", "exit137-kill":
		done()
		return 137
	case "command-not-found":
		respond(`{"v":2,"ok":false,"result":null,"output":"","output_truncated":false,"output_bytes":0,"error":{"type":"command","message":"start: exec: \"python3\": executable file not found in $PATH"}}`)
	case "runner-oom":
		respond(`{"v":2,"ok":false,"result":null,"output":"","output_truncated":false,"output_bytes":0,"error":{"type":"oom","message":"memory exhausted: 65523712 of 67108864 bytes in use (runner guard)"}}`)
	case "runner-timeout":
		respond(`{"v":2,"ok":false,"result":null,"output":"partial","output_truncated":false,"output_bytes":7,"error":{"type":"timeout","message":"stopped: runner deadline of 5s"}}`)
	case "usage":
		respond(`{"v":2,"ok":true,"result":3,"result_type":"int","output":"","output_truncated":false,"output_bytes":0,"usage":{"cpu_us":1500,"memory_peak_bytes":9000000}}`)
	case "usage-cpu-claim": // a second of CPU in the moment the response took
		respond(`{"v":2,"ok":true,"result":3,"result_type":"int","output":"","output_truncated":false,"output_bytes":0,"usage":{"cpu_us":5000000,"memory_peak_bytes":9000000}}`)
	case "usage-peak-claim":
		respond(`{"v":2,"ok":true,"result":3,"result_type":"int","output":"","output_truncated":false,"output_bytes":0,"usage":{"cpu_us":1500,"memory_peak_bytes":99999999999}}`)
	case "cpu-limit":
		respond(`{"v":2,"ok":false,"result":null,"output":"","output_truncated":false,"output_bytes":0,"error":{"type":"cpu_time","message":"CPU-time limit of 1s reached: 1s used"},"usage":{"cpu_us":50000,"memory_peak_bytes":9000000}}`)
	case "exec-oom", "exec-oom-events-fail":
		respond(`{"v":2,"ok":false,"result":null,"output":"","output_truncated":false,"output_bytes":0,"error":{"type":"exec","message":"signal: killed"},"exit":{"code":-1,"signal":"killed"}}`)
	default:
		fmt.Fprintf(os.Stderr, "fake docker: unknown mode %q\n", mode)
		return 2
	}
	done()
	return 0
}

// lateCreate creates the container ("name\trunID") once the supervisor has
// listed containers at least once and found none.
func lateCreate(state, nameAndID string) {
	name, runID, _ := strings.Cut(nameAndID, "\t")
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(filepath.Join(state, "ps-called")); err == nil {
			time.Sleep(50 * time.Millisecond)
			writeContainer(filepath.Join(state, "c-"+name), runID+"\t0\trunning\t")
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ps prints one line per container whose run-id label matches the label
// filter; with --format (gc's listing) it prints every container as
// "<run id>\t<deadline>\t<state>\t<name>\t<owner>". Container IDs are
// names here.
func ps(state string, args []string) {
	f := flagValue(args, "--filter")
	for _, c := range Containers(state) {
		b, _ := os.ReadFile(filepath.Join(state, "c-"+c))
		fields := strings.SplitN(string(b), "\t", 4)
		for len(fields) < 4 {
			fields = append(fields, "")
		}
		switch {
		case flagValue(args, "--format") != "":
			fmt.Printf("%s\t%s\t%s\t%s\t%s\n", fields[0], fields[1], fields[2], c, fields[3])
		case strings.HasPrefix(f, "label="+labelRunID) && fields[0] == strings.TrimPrefix(f, "label="+labelRunID):
			fmt.Println(c)
		}
	}
}

// AddContainer puts a running container of another run in the state
// directory, as gc or cleanup would find it.
func AddContainer(state, name, runID, deadline, status string) error {
	return AddOwnedContainer(state, name, runID, deadline, status, "")
}

// AddOwnedContainer is AddContainer with an owner label.
func AddOwnedContainer(state, name, runID, deadline, status, owner string) error {
	return writeContainer(filepath.Join(state, "c-"+name), runID+"\t"+deadline+"\t"+status+"\t"+owner)
}

// writeContainer creates a container file whole, by rename, as the daemon
// creates a container: a fake killed halfway through a plain write would
// leave a file with no labels, which no listing by label could find.
func writeContainer(path, content string) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
