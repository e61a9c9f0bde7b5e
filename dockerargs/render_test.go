package dockerargs

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"

	"github.com/synapse-lang/synapse-isolation/limits"
)

var testImage = "sha256:" + strings.Repeat("0123456789abcdef", 4)

func baseSpec() Spec {
	return Spec{
		Memory:   limits.DefaultMemory,
		Name:     "synapse-iso-0123456789abcdef",
		RunID:    "0123456789abcdef",
		Deadline: 1764409200,
		Image:    testImage,
		Args:     []string{"--timeout", "10s"},
	}
}

func TestRenderGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Spec)
	}{
		{"defaults", func(*Spec) {}},
		{"memory-1g", func(s *Spec) { s.Memory = 1 << 30 }},
		{"memory-bytes", func(s *Spec) { s.Memory = 64<<20 + 1 }},
		{"exec", func(s *Spec) { s.Args = append(s.Args, "--exec", "python3", "-") }},
		{"selfcheck", func(s *Spec) { s.Args = append(s.Args, "--selfcheck") }},
		{"all-options", func(s *Spec) {
			s.CLI, s.Context, s.Runtime, s.Memory = "/usr/local/bin/docker", "remote-vm", "runsc", 256<<20
			s.Args = append(s.Args, "--exec", "python3", "-")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := baseSpec()
			tc.edit(&s)
			assert.NilError(t, s.Validate())
			golden.Assert(t, strings.Join(Render(s), "\n")+"\n", tc.name+".golden")
		})
	}
}

// TestRenderGoldenOptionCombinations covers every combination of the
// optional parts: client binary, context and runtime.
func TestRenderGoldenOptionCombinations(t *testing.T) {
	for mask := 1; mask < 8; mask++ {
		s := baseSpec()
		var parts []string
		if mask&1 != 0 {
			s.CLI = "podman"
			parts = append(parts, "cli")
		}
		if mask&2 != 0 {
			s.Context = "remote-vm"
			parts = append(parts, "context")
		}
		if mask&4 != 0 {
			s.Runtime = "runsc"
			parts = append(parts, "runtime")
		}
		name := strings.Join(parts, "-")
		t.Run(name, func(t *testing.T) {
			assert.NilError(t, s.Validate())
			golden.Assert(t, strings.Join(Render(s), "\n")+"\n", name+".golden")
		})
	}
}

func TestRenderStartsWithTheCard(t *testing.T) {
	got := strings.Join(Render(baseSpec()), " ")
	card := "docker run --rm --user 65534:65534 --cap-drop=ALL --security-opt no-new-privileges --read-only " +
		"--tmpfs /tmp:rw,noexec,nosuid,nodev,size=32m,mode=1777 --network none --cpus 1 --pids-limit 64 " +
		"--ulimit nofile=64:64 --ulimit core=0:0 --memory 512m --memory-swap 512m --ipc none --log-driver none " +
		"--pull never --interactive --name "
	assert.Assert(t, strings.HasPrefix(got, card), got)
}

func TestSpecValidate(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Spec)
		want string
	}{
		{func(s *Spec) { s.Image = "python:latest" }, `--image: must be an immutable image ID sha256:<64 lowercase hex digits>, not a name or tag (got "python:latest")`},
		{func(s *Spec) { s.Memory = 1 << 20 }, "--memory: must be at least 64m"},
		{func(s *Spec) { s.Name = "" }, "--name: must not be empty"},
		{func(s *Spec) { s.Name = "-rm" }, `--name: "-rm" must match [a-zA-Z0-9][a-zA-Z0-9_.-]*`},
		{func(s *Spec) { s.Name = "a b" }, `--name: "a b" must match [a-zA-Z0-9][a-zA-Z0-9_.-]*`},
		{func(s *Spec) { s.Runtime = "--privileged" }, `--runtime: "--privileged" must match [a-zA-Z0-9][a-zA-Z0-9_.-]*`},
		{func(s *Spec) { s.Context = "x;y" }, `--context: "x;y" must match [a-zA-Z0-9][a-zA-Z0-9_.-]*`},
		{func(s *Spec) { s.RunID = "" }, "run id: must not be empty"},
	} {
		s := baseSpec()
		tc.edit(&s)
		assert.Error(t, s.Validate(), tc.want)
	}
}
