// Package fakedocker is a stand-in for the docker CLI in tests: a test
// binary calls Main from TestMain, and, when its environment asks for it,
// behaves like `docker` in the scenario the environment names. The
// scenarios are rows of one table (scenarios.go), so a new failure mode is
// one row. Containers are files in a state directory, so tests can see
// what was left behind.
package fakedocker

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// Environment variables that select the fake and its behaviour.
const (
	EnvMode  = "FAKE_DOCKER_MODE"  // the scenario's name (see scenarios)
	EnvState = "FAKE_DOCKER_STATE" // directory holding containers and the call log
)

// Responses the fake run writes.
const (
	OKResponse  = `{"v":8,"ok":true,"result":3,"result_type":"int","output":"","output_truncated":false,"output_bytes":0}`
	ErrResponse = `{"v":8,"ok":false,"result":null,"output":"","output_truncated":false,"output_bytes":0,"error":{"type":"runtime","message":"boom","line":1,"col":1}}`
)

// What docker says when its daemon cannot be reached.
const cannotConnect = "Cannot connect to the Docker daemon at unix:///fake.sock. Is the docker daemon running?"

// fake is one invocation of the fake docker: its scenario and where it
// keeps its containers.
type fake struct {
	mode string
	scenario
	state string
}

// Main acts as docker and exits if EnvMode is set; otherwise it returns.
func Main() {
	mode := os.Getenv(EnvMode)
	if mode == "" {
		return
	}
	os.Exit(fake{mode, scenarios[mode], os.Getenv(EnvState)}.docker(os.Args[1:]))
}

// docker logs the call and runs its command; it returns the exit status.
func (f fake) docker(args []string) int {
	appendLog(f.state, args)
	if len(args) >= 2 && args[0] == "--context" {
		args = args[2:]
	}
	if len(args) == 0 {
		return 2
	}
	command, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(os.Stderr, "fake docker: unsupported %q\n", args[0])
		return 2
	}
	return command(f, args)
}

// commands are the docker commands the fake knows, each given its whole
// argument list (the command's name first).
var commands = map[string]func(f fake, args []string) int{
	"--version": func(f fake, _ []string) int {
		fmt.Printf("Docker version %s, build fake\n", cmp.Or(f.version, "28.2.2"))
		return 0
	},
	"version": func(fake, []string) int {
		fmt.Println("20.10.24")
		return 0
	},
	"info":      info,
	"image":     imageInspect,
	"container": containerInspect,
	"rm":        rm,
	"ps":        psCommand,
	"events":    events,
	"run":       func(f fake, args []string) int { return f.run(args[1:]) },
}

// imageInspect answers `docker image inspect --format F IMAGE`: the
// image's labels, or F with the fields run and doctor ask for filled in
// (the image as its own ID, the policy's user, imageSize).
func imageInspect(f fake, args []string) int {
	image := args[len(args)-1]
	if f.noImage {
		fmt.Fprintf(os.Stderr, "Error: No such image: %s\n", image)
		return 1
	}
	if slices.ContainsFunc(args, func(a string) bool { return strings.Contains(a, ".Config.Labels") }) {
		time.Sleep(f.labelsDelay)
		fmt.Println(cmp.Or(f.labels, "null"))
		return 0
	}
	fmt.Println(strings.NewReplacer("{{.Id}}", image, "{{.Config.User}}", limits.User, "{{.Size}}", imageSize).Replace(flagValue(args, "--format")))
	return 0
}

// imageSize is the size in bytes of the fake's images.
const imageSize = "52428800"

// engineInfo is `docker info --format {{json .}}` of a daemon that
// supports every limit: the fields the doctor reads.
const engineInfo = `{"ServerVersion":"28.2.2","CgroupVersion":"2","CgroupDriver":"systemd","MemoryLimit":true,"SwapLimit":true,` +
	`"PidsLimit":true,"CpuCfsQuota":true,"SecurityOptions":["name=seccomp,profile=builtin","name=cgroupns"],"Warnings":null}`

// info answers `docker info` as the scenario's daemon, or as a client
// that cannot reach one.
func info(f fake, _ []string) int {
	if !f.daemon {
		fmt.Fprintln(os.Stderr, cannotConnect)
		return 1
	}
	fmt.Println(engineInfo)
	return 0
}

// containerInspect answers `docker container inspect --format F NAME`
// with the container's run id and the scenario's record of it.
func containerInspect(f fake, args []string) int {
	name := args[len(args)-1]
	b, err := os.ReadFile(filepath.Join(f.state, "c-"+name))
	if err != nil || f.record == "" {
		fmt.Fprintf(os.Stderr, "Error: No such container: %s\n", name)
		return 1
	}
	runID, _, _ := strings.Cut(string(b), "\t")
	fmt.Println(runID + "\t" + f.record)
	return 0
}

// rm answers `docker rm -f ID...`. The fake's container IDs are its
// container names.
func rm(f fake, args []string) int {
	for _, id := range args[2:] {
		if err := os.Remove(filepath.Join(f.state, "c-"+id)); err != nil {
			fmt.Fprintf(os.Stderr, "Error response from daemon: No such container: %s\n", id)
			return 1
		}
		fmt.Println(id)
	}
	return 0
}

// psCommand answers `docker ps`; a create still in flight lands once it
// has (landLateCreate).
func psCommand(f fake, args []string) int {
	if f.psDown {
		fmt.Fprintln(os.Stderr, cannotConnect)
		return 1
	}
	ps(f.state, args[1:])
	landLateCreate(f.state)
	return 0
}

// events answers `docker events` queries for a run's OOM kill and start.
func events(f fake, args []string) int {
	if f.eventsDown {
		fmt.Fprintln(os.Stderr, cannotConnect)
		return 1
	}
	if slices.Contains(args, "event=die") {
		return f.follow(args)
	}
	query := strings.Join(args, " ")
	if f.oomEvent && strings.Contains(query, "event=oom") {
		fmt.Println("oom")
	}
	if strings.Contains(query, "event=start") && startedRun(f.state, args) {
		fmt.Println("start")
	}
	return 0
}

// follow streams, as the supervisor asks for them (without --until), the die events of the owner the label filter names, as
// "run-id status" lines, until it is killed; without the scenario's
// dies, it ends at once.
func (f fake) follow(args []string) int {
	if !f.dies {
		return 0
	}
	var owner string
	for i, a := range args {
		if a == "--filter" && i+1 < len(args) && strings.HasPrefix(args[i+1], "label="+labelOwner) {
			owner = strings.TrimPrefix(args[i+1], "label="+labelOwner)
		}
	}
	seen := 0
	for {
		b, _ := os.ReadFile(filepath.Join(f.state, dieLog))
		lines := strings.SplitAfter(string(b), "\n")
		for ; seen < len(lines) && strings.HasSuffix(lines[seen], "\n"); seen++ {
			o, rest, _ := strings.Cut(lines[seen], " ")
			if o == owner {
				if _, err := os.Stdout.WriteString(rest); err != nil {
					return 1
				}
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
}
