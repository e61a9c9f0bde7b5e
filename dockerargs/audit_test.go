package dockerargs

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// policyArgv is a compliant argv the table below edits one flag at a time.
func policyArgv() []string {
	c, err := Check(baseSpec())
	if err != nil {
		panic(err)
	}
	return Render(c)
}

// withFlags inserts extra flags right after `run`.
func withFlags(extra ...string) []string {
	argv := policyArgv()
	i := slices.Index(argv, "run") + 1
	return slices.Concat(argv[:i], extra, argv[i:])
}

// replace swaps the first occurrence of old (and following values) in the argv.
func replace(old []string, repl ...string) []string {
	argv := policyArgv()
	for i := range argv {
		if slices.Equal(argv[i:min(i+len(old), len(argv))], old) {
			return slices.Concat(argv[:i], repl, argv[i+len(old):])
		}
	}
	panic(fmt.Sprintf("%q not in argv", old))
}

// audit audits an argv that must be readable.
func audit(t *testing.T, argv []string) Report {
	t.Helper()
	r, err := Audit(argv, AuditOptions{Seccomp: policyProfile})
	assert.NilError(t, err)
	return r
}

func statusOf(r Report, boundary string) Status {
	for _, f := range r.Findings {
		if f.Boundary == boundary {
			return f.Status
		}
	}
	return ""
}

func TestAuditRenderedIsClean(t *testing.T) {
	r := audit(t, policyArgv())
	assert.Assert(t, r.Compliant(), "%+v", r.Problems())
	assert.Equal(t, len(r.Findings), len(judges))
	ids := map[string]bool{}
	for _, f := range r.Findings {
		assert.Assert(t, f.ID != "" && !ids[f.ID], "ids are present and unique: %q", f.ID)
		ids[f.ID] = true
	}
}

func TestAuditCatches(t *testing.T) {
	for _, tc := range []struct {
		name     string
		argv     []string
		boundary string
		want     Status
	}{
		{"volume short", withFlags("-v", "/:/host"), "no mounts", Violated},
		{"volume long eq", withFlags("--volume=/var/run/docker.sock:/var/run/docker.sock"), "no mounts", Violated},
		{"volume combined", withFlags("-itv/etc:/etc"), "no mounts", Violated},
		{"mount", withFlags("--mount", "type=bind,src=/,dst=/h"), "no mounts", Violated},
		{"volumes-from", withFlags("--volumes-from=other"), "no mounts", Violated},
		{"api socket", withFlags("--use-api-socket"), "no mounts", Violated},
		{"privileged", withFlags("--privileged"), "not privileged", Violated},
		{"privileged true", withFlags("--privileged=true"), "not privileged", Violated},
		{"cap-add", withFlags("--cap-add", "SYS_ADMIN"), "capabilities dropped", Violated},
		{"cap-add eq", withFlags("--cap-add=NET_RAW"), "capabilities dropped", Violated},
		{"no cap-drop", replace([]string{"--cap-drop=ALL"}), "capabilities dropped", Missing},
		{"cap-drop lowercase", replace([]string{"--cap-drop=ALL"}, "--cap-drop", "all"), "capabilities dropped", Enforced},
		{"device", withFlags("--device", "/dev/kvm"), "no devices", Violated},
		{"gpus", withFlags("--gpus=all"), "no devices", Violated},
		{"publish short", withFlags("-p", "8080:80"), "no published ports", Violated},
		{"publish long", withFlags("--publish=80"), "no published ports", Violated},
		{"publish all", withFlags("-P"), "no published ports", Violated},
		{"net host", withFlags("--net=host"), "no network", Violated},
		{"network bridge too", withFlags("--network", "bridge"), "no network", Violated},
		{"network overridden", replace([]string{"--network", "none"}, "--network", "none", "--network", "host"), "no network", Violated},
		{"network bridge", replace([]string{"--network", "none"}, "--network=bridge"), "no network", Violated},
		{"network container", replace([]string{"--network", "none"}, "--net", "container:x"), "no network", Violated},
		{"no network flag", replace([]string{"--network", "none"}), "no network", Missing},
		{"pid host", withFlags("--pid=host"), "no host namespaces", Violated},
		{"pid container", withFlags("--pid", "container:abc"), "no host namespaces", Violated},
		{"uts host", withFlags("--uts", "host"), "no host namespaces", Violated},
		{"userns host", withFlags("--userns=host"), "no host namespaces", Violated},
		{"cgroupns host", withFlags("--cgroupns=host"), "no host namespaces", Violated},
		{"ipc host", replace([]string{"--ipc", "none"}, "--ipc", "host"), "ipc none", Violated},
		{"seccomp unconfined added", withFlags("--security-opt", "seccomp=unconfined"), "seccomp allowlist", Violated},
		{"apparmor unconfined", withFlags("--security-opt", "apparmor=unconfined"), "security profiles", Violated},
		{"label disable", withFlags("--security-opt", "label=disable"), "security profiles", Violated},
		{"systempaths", withFlags("--security-opt", "systempaths=unconfined"), "security profiles", Violated},
		{"nnp false", withFlags("--security-opt", "no-new-privileges=false"), "no new privileges", Enforced},
		{"nnp false last", replace([]string{"--security-opt", "no-new-privileges"}, "--security-opt", "no-new-privileges", "--security-opt", "no-new-privileges=false"), "no new privileges", Violated},
		{"nnp missing", replace([]string{"--security-opt", "no-new-privileges"}), "no new privileges", Missing},
		{"nnp true colon", replace([]string{"--security-opt", "no-new-privileges"}, "--security-opt=no-new-privileges:true"), "no new privileges", Enforced},
		{"env short", withFlags("-e", "AWS_SECRET=x"), "no host environment", Violated},
		{"env passthrough", withFlags("--env=HOME"), "no host environment", Violated},
		{"env combined", withFlags("-ie", "X=1"), "no host environment", Violated},
		{"env-file", withFlags("--env-file", ".env"), "no host environment", Violated},
		{"group-add", withFlags("--group-add", "docker"), "no extra groups", Violated},
		{"sysctl", withFlags("--sysctl", "net.ipv4.ip_forward=1"), "no sysctls", Violated},
		{"swap missing", replace([]string{"--memory-swap", "512m"}), "no swap", Missing},
		{"swap unlimited", replace([]string{"--memory-swap", "512m"}, "--memory-swap", "-1"), "no swap", Violated},
		{"swap weakened", replace([]string{"--memory-swap", "512m"}, "--memory-swap=1g"), "no swap", Violated},
		{"swap same in bytes", replace([]string{"--memory-swap", "512m"}, "--memory-swap", "536870912"), "no swap", Enforced},
		{"swap same in MiB", replace([]string{"--memory-swap", "512m"}, "--memory-swap", "512MiB"), "no swap", Enforced},
		{"memory short", replace([]string{"--memory", "512m"}, "-m", "32m"), "memory limit", Violated},
		{"memory not whole", replace([]string{"--memory", "512m"}, "--memory", "512.3m"), "memory limit", Violated},
		{"memory GiB", replace([]string{"--memory", "512m"}, "--memory", "0.5GiB"), "memory limit", Enforced},
		{"memory missing", replace([]string{"--memory", "512m"}), "memory limit", Missing},
		{"oom kill disabled", withFlags("--oom-kill-disable"), "memory limit", Violated},
		{"tag", replace([]string{testImage}, "python:latest"), "immutable image id", Violated},
		{"short id", replace([]string{testImage}, "0123456789ab"), "immutable image id", Violated},
		{"digest", replace([]string{testImage}, "busybox@"+testImage), "immutable image id", Violated},
		{"uppercase", replace([]string{testImage}, strings.ToUpper(testImage)), "immutable image id", Violated},
		{"user root", replace([]string{"--user", limits.User}, "--user", "root"), "user 65534:65534", Violated},
		{"user 0", replace([]string{"--user", limits.User}, "-u", "0"), "user 65534:65534", Violated},
		{"user 0:0", replace([]string{"--user", limits.User}, "--user=0:0"), "user 65534:65534", Violated},
		{"user no group", replace([]string{"--user", limits.User}, "--user", "65534"), "user 65534:65534", Violated},
		{"user combined", replace([]string{"--user", limits.User}, "-iu65534:65534"), "user 65534:65534", Enforced},
		{"user overridden", withFlags("--user", "0"), "user 65534:65534", Enforced},
		{"user missing", replace([]string{"--user", limits.User}), "user 65534:65534", Missing},
		{"rw root", replace([]string{"--read-only"}, "--read-only=false"), "read-only root", Violated},
		{"rw root missing", replace([]string{"--read-only"}), "read-only root", Missing},
		{"no rm", replace([]string{"--rm"}), "ephemeral (--rm)", Missing},
		{"tmp exec", replace([]string{"--tmpfs", limits.Tmpfs}, "--tmpfs", "/tmp:rw,exec,nosuid,nodev,size=32m"), "bounded /tmp", Violated},
		{"tmp unbounded", replace([]string{"--tmpfs", limits.Tmpfs}, "--tmpfs", "/tmp:rw,noexec,nosuid,nodev"), "bounded /tmp", Violated},
		{"tmp too big", replace([]string{"--tmpfs", limits.Tmpfs}, "--tmpfs=/tmp:noexec,nosuid,nodev,size=1g"), "bounded /tmp", Violated},
		{"second tmpfs", withFlags("--tmpfs", "/run"), "bounded /tmp", Violated},
		{"cpus 2", replace([]string{"--cpus", "1"}, "--cpus=2"), "one cpu", Violated},
		{"cpus half", replace([]string{"--cpus", "1"}, "--cpus", "0.5"), "one cpu", Enforced},
		{"pids unlimited", replace([]string{"--pids-limit", "64"}, "--pids-limit", "-1"), "pids limit", Violated},
		{"pids 65", replace([]string{"--pids-limit", "64"}, "--pids-limit=65"), "pids limit", Violated},
		{"nofile raised later", withFlags("--ulimit", "nofile=1024:1024"), "open files limit", Enforced},
		{"nofile raised", replace([]string{"--ulimit", "nofile=64:64"}, "--ulimit", "nofile=64:4096"), "open files limit", Violated},
		{"core raised", replace([]string{"--ulimit", "core=0:0"}, "--ulimit=core=-1"), "no core dumps", Violated},
		{"core missing", replace([]string{"--ulimit", "core=0:0"}), "no core dumps", Missing},
		{"log driver", replace([]string{"--log-driver", "none"}, "--log-driver", "json-file"), "no daemon-side log", Violated},
		{"pull always", replace([]string{"--pull", "never"}, "--pull=always"), "no pulls", Violated},
		{"pull missing", replace([]string{"--pull", "never"}), "no pulls", Missing},
		{"entrypoint", withFlags("--entrypoint", "/bin/sh"), "runner entrypoint", Violated},
		{"init", withFlags("--init"), "runner entrypoint", Violated},
		{"init true", withFlags("--init=true"), "runner entrypoint", Violated},
		{"init false", withFlags("--init=false"), "runner entrypoint", Enforced},
		{"seccomp missing", replace([]string{"--security-opt", "seccomp=" + testProfile}), "seccomp allowlist", Missing},
		{"seccomp unconfined", replace([]string{"--security-opt", "seccomp=" + testProfile}, "--security-opt", "seccomp=unconfined"), "seccomp allowlist", Violated},
		{"seccomp unconfined colon", withFlags("--security-opt=seccomp:unconfined"), "seccomp allowlist", Violated},
		{"seccomp not read", replace([]string{"--security-opt", "seccomp=" + testProfile}, "--security-opt", "seccomp=/other.json"), "seccomp allowlist", Violated},
		{"unknown flag", withFlags("--frobnicate"), "other flags", Violated},
		{"unknown short", withFlags("-Z"), "other flags", Violated},
		{"harmless flags", withFlags("-t", "--hostname", "x", "--label=a=b", "-w", "/tmp"), "other flags", Enforced},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := audit(t, tc.argv)
			assert.Equal(t, statusOf(r, tc.boundary), tc.want, "%+v", r.Findings)
			assert.Equal(t, r.Compliant(), tc.want == Enforced && len(r.Problems()) == 0)
		})
	}
}

func TestAuditCommandShapes(t *testing.T) {
	argv := policyArgv()
	for name, in := range map[string][]string{
		"container run":    slices.Concat([]string{"docker", "container"}, argv[1:]),
		"global options":   slices.Concat([]string{"docker", "-H", "unix:///x.sock", "--debug", "--context=default"}, argv[1:]),
		"path to docker":   slices.Concat([]string{"/usr/bin/docker"}, argv[1:]),
		"double dash flag": slices.Insert(slices.Clone(argv), slices.Index(argv, testImage), "--"),
	} {
		t.Run(name, func(t *testing.T) {
			r := audit(t, in)
			assert.Check(t, r.Compliant(), "%+v", r.Problems())
		})
	}
	for name, in := range map[string][]string{
		"empty":         nil,
		"not run":       {"docker", "ps"},
		"no image":      {"docker", "run", "--rm"},
		"missing value": {"docker", "run", "--user"},
		"bad global":    {"docker", "--bogus", "run", testImage},
		"ls":            {"ls", "-l"},
		"kubectl":       {"kubectl", "run", "x", "--image=y"},
		"no client":     {"run", testImage},
	} {
		t.Run(name, func(t *testing.T) {
			r, err := Audit(in, AuditOptions{})
			var unreadable *UnreadableError
			assert.Check(t, errors.As(err, &unreadable), "%v", err)
			assert.Check(t, is.Len(r.Findings, 0))
			assert.Check(t, !r.Compliant())
		})
	}
	// Arguments after the image belong to the program, not to docker.
	r := audit(t, slices.Concat(argv, []string{"--privileged", "-v", "/:/h"}))
	assert.Check(t, r.Compliant(), "%+v", r.Problems())
}

// TestAuditOfRenderIsClean is the property test: every valid spec renders
// an argv the audit finds fully compliant.
func TestAuditOfRenderIsClean(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	for i := 0; i < 2000; i++ {
		s := Spec{
			CLI:      pick("", "docker", "/usr/bin/docker", "podman"),
			Context:  pick("", "default", "remote-vm"),
			Runtime:  pick("", "runc", "runsc"),
			Limits:   resolved(limits.Config{Memory: limits.MinMemory + limits.Bytes(rng.Int64N(int64(limits.MaxMemory-limits.MinMemory+1)))}),
			Name:     fmt.Sprintf("synapse-iso-%016x", rng.Uint64()),
			RunID:    fmt.Sprintf("%016x", rng.Uint64()),
			Deadline: rng.Int64(),
			Image:    fmt.Sprintf("sha256:%016x%016x%016x%016x", rng.Uint64(), rng.Uint64(), rng.Uint64(), rng.Uint64()),
		}
		if rng.IntN(2) == 0 {
			s.Args = []string{"--timeout", "5s", "--threads", "1", "--exec", "sh", "-", "--privileged -v /:/x"}
		}
		s.Seccomp = testProfile
		o := AuditOptions{CLI: s.CLI, Seccomp: policyProfile}
		if s.Runtime != "" {
			o.AllowRuntimes = []string{s.Runtime}
		}
		r, err := Audit(mustRender(t, s), o)
		assert.NilError(t, err)
		assert.Assert(t, r.Compliant(), "%+v\n%+v", s, r.Problems())
	}
}

// FuzzAudit checks properties of the audit on arbitrary argvs: it is
// deterministic; a compliant argv stays compliant with a harmless flag
// added, whatever that flag's value; and an argv that carries a flag the
// policy forbids is never compliant, whatever follows it.
func FuzzAudit(f *testing.F) {
	f.Add(strings.Join(policyArgv(), "\x00"), uint8(0))
	f.Add("docker\x00run\x00-itv/a:/b\x00x", uint8(1))
	f.Add("--privileged=false\x00--network\x00none", uint8(7))
	harmless := []string{"--hostname", "--label", "-w", "--workdir", "--stop-timeout", "--label-file"}
	forbidden := [][]string{
		{"-v", "/:/host"}, {"--mount", "type=bind,src=/,dst=/h"}, {"--cap-add", "SYS_ADMIN"}, {"--device", "/dev/kvm"},
		{"-e", "SECRET=x"}, {"--network", "host"}, {"--group-add", "0"}, {"--sysctl", "kernel.x=1"}, {"-p", "80"},
	}
	f.Fuzz(func(t *testing.T, s string, pick uint8) {
		argv := strings.Split(s, "\x00")
		r, err := Audit(argv, AuditOptions{Seccomp: policyProfile})
		again, errAgain := Audit(slices.Clone(argv), AuditOptions{Seccomp: policyProfile})
		assert.DeepEqual(t, again, r)
		assert.Equal(t, errAgain == nil, err == nil)

		if h := harmless[int(pick)%len(harmless)]; h != "--stop-timeout" && h != "--label-file" {
			r := audit(t, withFlags(h, s))
			assert.Assert(t, r.Compliant(), "%s %q: %+v", h, s, r.Problems())
		}

		bad := forbidden[int(pick)%len(forbidden)]
		r, err = Audit(slices.Concat([]string{"docker", "run"}, bad, argv), AuditOptions{})
		assert.Assert(t, err != nil || !r.Compliant(), "%q then %q", bad, argv)
	})
}
