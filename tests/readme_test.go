package tests

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
)

// readmeBlock returns the first fenced block of the README whose fence
// line is "```"+info and whose text starts with first, so the tests run
// exactly what the README shows.
func readmeBlock(t *testing.T, info, first string) string {
	t.Helper()
	_, rest, ok := strings.Cut(readmeText(t), "\n```"+info+"\n"+first)
	assert.Assert(t, ok, "no ```%s block starting %q in README.md", info, first)
	block, _, ok := strings.Cut(rest, "\n```")
	assert.Assert(t, ok)
	return first + block + "\n"
}

// workdir is a directory with the built tool as ./synapse-isolation.
func workdir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	assert.NilError(t, os.Symlink(toolBin, filepath.Join(dir, "synapse-isolation")))
	return dir
}

func TestReadmeShellScript(t *testing.T) {
	needEngine(t)
	t.Parallel()
	dir := workdir(t)
	script := filepath.Join(dir, "run-one.sh")
	assert.NilError(t, fakedocker.WriteExecutable(script, []byte(readmeBlock(t, "sh", "#!/bin/sh\n"))))
	for _, tc := range []struct {
		src, want string
		code      int
	}{
		{"1+2", "ok\n", 0},
		{"fail('no')", "the program failed: see result.json\n", 0},
		{"while True:\n  pass", "timed out\n", 0},
	} {
		prog := filepath.Join(dir, "prog.star")
		assert.NilError(t, os.WriteFile(prog, []byte(tc.src), 0o644))
		cmd := exec.Command(script, prog)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "SYNAPSE_IMAGE="+refImage)
		out, err := cmd.Output()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		assert.Check(t, is.Equal(string(out), tc.want), tc.src)
		assert.Check(t, is.Equal(code, tc.code), tc.src)
	}
}

func TestExecModeMissingInterpreter(t *testing.T) {
	needEngine(t)
	t.Parallel()
	r := tool(t, nil, "", "run", "--image", refImage, "--code", "print(1)", "--", "python3", "-")
	assert.Check(t, is.Equal(r.code, 127), r.stderr)
	assert.Check(t, is.Equal(r.res.Verdict, "command_not_found"))
	assert.Check(t, is.Contains(r.stderr, `"python3": executable file not found`))
	assertGone(t, r.res.Container)
	assertRunGone(t, r.res.RunID)
}

// The README's console examples are run as shown, and what each prints is
// held to what the README shows: every JSON field, and the value of every
// field that does not vary from run to run (verdict, exit code, result,
// error, ...); every other line as printed, once the ids, digests and
// machine details below are masked. The set-up commands, every command of
// the tool having an example, and the README's length and generated
// sections are checked too. Prose is not.

// readmeText is the README.
func readmeText(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	assert.NilError(t, err)
	return string(b)
}

// consoleStep is one "$ command" of a console block and the lines the
// README shows it printing, stdout and stderr together.
type consoleStep struct {
	cmd  string
	want []string
}

// consoleBlocks returns every ```console block of the README as steps. A
// command goes on over the next lines while a single quote is open.
func consoleBlocks(readme string) [][]consoleStep {
	var blocks [][]consoleStep
	rest := readme
	for {
		_, after, ok := strings.Cut(rest, "\n```console\n")
		if !ok {
			return blocks
		}
		body, tail, _ := strings.Cut(after, "\n```")
		rest = tail
		var steps []consoleStep
		lines := strings.Split(body, "\n")
		for i := 0; i < len(lines); i++ {
			l := lines[i]
			if cmd, ok := strings.CutPrefix(l, "$ "); ok {
				for strings.Count(cmd, "'")%2 == 1 && i+1 < len(lines) {
					i++
					cmd += "\n" + lines[i]
				}
				steps = append(steps, consoleStep{cmd: cmd})
				continue
			}
			if len(steps) > 0 {
				steps[len(steps)-1].want = append(steps[len(steps)-1].want, l)
			}
		}
		blocks = append(blocks, steps)
	}
}

// stepMark separates the steps' outputs in one shell's output.
const stepMark = "@@readme-step@@"

// runConsole runs a block's commands in one bash in dir, as a reader
// would type them, and returns each command's output lines.
func runConsole(t *testing.T, dir string, env []string, steps []consoleStep) [][]string {
	t.Helper()
	var script strings.Builder
	script.WriteString("exec 2>&1\n")
	for _, s := range steps {
		// The mark keeps the command's status for an `echo $?` after it.
		fmt.Fprintf(&script, "%s\n__s=$?; echo %s; (exit $__s)\n", s.cmd, stepMark)
	}
	cmd := exec.Command("bash", "-c", script.String())
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, _ := cmd.Output()
	parts := strings.Split(string(out), stepMark+"\n")
	assert.Assert(t, is.Len(parts, len(steps)+1), "the block's commands did not all run:\n%s", out)
	got := make([][]string, len(steps))
	for i := range steps {
		if p := strings.TrimSuffix(parts[i], "\n"); p != "" {
			got[i] = strings.Split(p, "\n")
		}
	}
	return got
}

// Masks for what varies between runs and machines.
var (
	maskDigest  = regexp.MustCompile(`sha256:[0-9a-f]{64}`)
	maskSeccomp = regexp.MustCompile(`seccomp=\S+\.json`)
	maskRunID   = regexp.MustCompile(`\b[0-9a-f]{16}\b`)
	maskTime    = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)
	maskSummary = regexp.MustCompile(`\b(wall|p50|p95|total|max) [0-9.]+`)
	maskDoctor  = regexp.MustCompile(`^(PASS|FAIL|WARN|SKIP)  (.+?)  +.*$`)
	maskDigits  = regexp.MustCompile(`\d+`)
)

// maskLine masks a line that is not a JSON object. A doctor line keeps its
// status and check: the detail is the machine's.
func maskLine(l string) string {
	l = maskDigest.ReplaceAllString(l, "sha256:ID")
	l = maskSeccomp.ReplaceAllString(l, "seccomp=FILE")
	l = maskRunID.ReplaceAllString(l, "RUNID")
	l = maskTime.ReplaceAllString(l, "TIME")
	if strings.HasPrefix(l, "batch: ") {
		l = maskSummary.ReplaceAllString(l, "$1 N")
	}
	return maskDoctor.ReplaceAllString(l, "$1  $2")
}

// volatile fields vary between runs: only whether they are null is held.
var volatile = map[string]bool{
	"run_id": true, "container": true, "image": true, "duration_ms": true, "timings": true,
	"version": true, "revision": true, "modified": true, "go": true,
}

// maskJSON returns v with every volatile value reduced to whether it is
// null, usage reduced to its keys, and the digits of an error message
// masked (a CPU time used, a line number of a batch are examples'
// details, not the tool's words).
func maskJSON(v any, key string) any {
	switch x := v.(type) {
	case map[string]any:
		m := map[string]any{}
		for k, e := range x {
			switch {
			case k == "usage":
				keys := map[string]any{}
				for uk := range e.(map[string]any) {
					keys[uk] = true
				}
				m[k] = keys
			case volatile[k] || volatile[key]:
				m[k] = e != nil
				if sub, ok := e.(map[string]any); ok {
					m[k] = maskJSON(sub, k)
				}
			case k == "message":
				m[k] = maskDigits.ReplaceAllString(fmt.Sprint(e), "N")
			default:
				m[k] = maskJSON(e, k)
			}
		}
		return m
	case []any:
		for i := range x {
			x[i] = maskJSON(x[i], key)
		}
	}
	return v
}

// sameOutput holds one step's output to what the README shows.
func sameOutput(t *testing.T, cmd string, want, got []string) {
	t.Helper()
	if !assert.Check(t, is.Len(got, len(want)), "%s\nREADME shows:\n%s\nthe tool printed:\n%s", cmd, strings.Join(want, "\n"), strings.Join(got, "\n")) {
		return
	}
	for i := range want {
		if !strings.HasPrefix(want[i], "{") {
			assert.Check(t, is.Equal(maskLine(got[i]), maskLine(want[i])), cmd)
			continue
		}
		var w, g any
		assert.NilError(t, json.Unmarshal([]byte(want[i]), &w), "README: %s", want[i])
		if !assert.Check(t, json.Unmarshal([]byte(got[i]), &g), "%s printed %s", cmd, got[i]) {
			continue
		}
		assert.Check(t, is.DeepEqual(maskJSON(g, ""), maskJSON(w, "")), "%s\nREADME: %s\ntool:   %s", cmd, want[i], got[i])
	}
}

// fakeBuildImage stands in for scripts/build-image.sh in an example's
// directory: it prints the images the suite built, by kind.
func fakeBuildImage(t *testing.T, dir string) {
	t.Helper()
	script := "#!/bin/sh\ncase \"$1\" in\n"
	for _, k := range kinds {
		script += fmt.Sprintf("  %s) echo %s ;;\n", k.name, images[k.name])
	}
	script += fmt.Sprintf("  '') echo %s ;;\n  *) exit 2 ;;\nesac\n", refImage)
	assert.NilError(t, os.Mkdir(filepath.Join(dir, "scripts"), 0o755))
	assert.NilError(t, fakedocker.WriteExecutable(filepath.Join(dir, "scripts", "build-image.sh"), []byte(script)))
}

// TestReadmeExamples runs every console example of the README. Not in
// parallel: the gc example removes what a killed run left, and another
// test's leftover must not be in its way.
func TestReadmeExamples(t *testing.T) {
	needPart(t, "") // each example is one part's
	readme := readmeText(t)
	shown := map[string]bool{}
	toolCmd := regexp.MustCompile(`\./synapse-isolation (\w+)`)
	for i, steps := range consoleBlocks(readme) {
		assert.Assert(t, len(steps) > 0)
		name := fmt.Sprint(i)
		if m := toolCmd.FindStringSubmatch(readme[strings.Index(readme, steps[0].cmd):]); m != nil {
			name += "-" + m[1]
		}
		for _, s := range steps {
			for _, f := range toolCmd.FindAllStringSubmatch(s.cmd, -1) {
				shown[f[1]] = true
			}
		}
		t.Run(name, func(t *testing.T) {
			// An example that builds an image is its kind's part's.
			if m := regexp.MustCompile(`build-image\.sh ([a-z0-9]+)`).FindStringSubmatch(steps[0].cmd); m != nil {
				needKind(t, m[1])
			} else {
				needEngine(t)
			}
			dir := workdir(t)
			fakeBuildImage(t, dir)
			leftover := ""
			for _, s := range steps {
				if strings.HasPrefix(s.cmd, "./synapse-isolation gc") {
					holdGC(t)
					leftover = killedRun(t)
				}
			}
			got := runConsole(t, dir, []string{"SYNAPSE_IMAGE=" + refImage}, steps)
			for i, s := range steps {
				if leftover != "" && strings.HasPrefix(s.cmd, "./synapse-isolation gc") {
					got[i] = linesNaming(got[i], leftover)
				}
				sameOutput(t, s.cmd, s.want, got[i])
			}
		})
	}
	help := tool(t, nil, "", "help")
	commands, _, _ := strings.Cut(help.stdout[strings.Index(help.stdout, "COMMANDS:"):], "\n\n")
	for _, l := range strings.Split(commands, "\n")[1:] {
		cmd := strings.Fields(l)[0]
		assert.Check(t, shown[cmd], "the README shows no example of %s", cmd)
	}
}

// killedRun leaves a running container as a SIGKILLed supervisor whose
// reaper was killed too would, and returns its name for gc to find.
func killedRun(t *testing.T) string {
	t.Helper()
	name := "synapse-iso-" + randomHex()
	cmd, _ := startRun(t, name)
	killWithReapers(t, cmd)
	return name
}

// linesNaming keeps the lines that name the container: gc may also remove
// what others left on a shared engine.
func linesNaming(lines []string, name string) []string {
	var keep []string
	for _, l := range lines {
		if strings.Contains(l, name+" ") {
			keep = append(keep, l)
		}
	}
	return keep
}
