package dockerargs_test

import (
	"fmt"
	"strings"

	"github.com/synapse-lang/synapse-isolation/dockerargs"
	"github.com/synapse-lang/synapse-isolation/limits"
)

func ExampleRender() {
	lim, err := limits.Config{}.Resolve() // the defaults: 512m, 10s
	if err != nil {
		fmt.Println(err)
		return
	}
	spec, err := dockerargs.Check(dockerargs.Spec{
		Limits:   lim,
		Name:     "synapse-iso-demo",
		RunID:    "5f0c7a1e9b2d4c38",
		Deadline: 1795947531,
		Seccomp:  "/home/ada/.cache/synapse-isolation/seccomp-3a7bd3e2.json",
		Image:    "sha256:" + strings.Repeat("ab", 32),
		Args:     []string{"--timeout", "10s"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Join(dockerargs.Render(spec), "\n"))
	// Output:
	// docker
	// run
	// --rm
	// --user
	// 65534:65534
	// --cap-drop=ALL
	// --security-opt
	// no-new-privileges
	// --read-only
	// --tmpfs
	// /tmp:rw,noexec,nosuid,nodev,size=32m,mode=1777
	// --network
	// none
	// --cpus
	// 1
	// --pids-limit
	// 64
	// --ulimit
	// nofile=64:64
	// --ulimit
	// core=0:0
	// --memory
	// 512m
	// --memory-swap
	// 512m
	// --ipc
	// none
	// --log-driver
	// none
	// --pull
	// never
	// --interactive
	// --security-opt
	// seccomp=/home/ada/.cache/synapse-isolation/seccomp-3a7bd3e2.json
	// --name
	// synapse-iso-demo
	// --label
	// io.synapse-isolation.run-id=5f0c7a1e9b2d4c38
	// --label
	// io.synapse-isolation.deadline=1795947531
	// sha256:abababababababababababababababababababababababababababababababab
	// --timeout
	// 10s
}

func ExampleAudit() {
	r, err := dockerargs.Audit([]string{"docker", "run", "--rm", "--network", "host", "-v", "/:/host", "python:latest"}, dockerargs.AuditOptions{})
	if err != nil {
		fmt.Println(err) // not a docker run argv at all
		return
	}
	for _, f := range r.Problems() {
		if f.Status == dockerargs.Violated {
			fmt.Printf("%s: %s\n", f.Boundary, f.Detail)
		}
	}
	fmt.Printf("compliant: %t (%d of %d boundaries not enforced)\n", r.Compliant(), len(r.Problems()), len(r.Findings))
	// Output:
	// no network: --network host, want none
	// immutable image id: image "python:latest" is not an immutable sha256: image ID
	// no mounts: --volume /:/host
	// compliant: false (18 of 32 boundaries not enforced)
}
