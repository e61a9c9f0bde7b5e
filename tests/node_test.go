package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestNodeRuns: the node image's declared interpreter runs a hello; the
// image holds no shell, package manager (npm included) nor perl; node
// writes nothing outside the program's working directory (no cache, no
// history: HOME is /nonexistent) and keeps to a few tasks, its libuv
// pool started; an uncaught exception is a program error named by its
// message, its file, line and stack in stderr.
func TestNodeRuns(t *testing.T) {
	needKind(t, "node")
	t.Parallel()
	r := kindRun(t, "node", "console.log(1 + 2)")
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	assert.Equal(t, r.res.Output, "3\n")
	assert.Check(t, is.Contains(r.stdout, `"interpreter":"node --v8-pool-size=1 --no-extra-info-on-fatal-exception -"`))

	r = kindRun(t, "node", `const fs = require("fs");
const paths = ["/bin/sh", "/usr/bin/sh", "/bin/bash", "/usr/bin/apt", "/usr/bin/dpkg", "/usr/bin/perl", "/usr/bin/npm", "/usr/share/nodejs/npm"];
const tasks = () => fs.readdirSync("/proc/self/task").length;
const before = tasks();
require("crypto").pbkdf2("a", "b", 1, 8, "sha1", () => {
	console.log(JSON.stringify({
		present: paths.filter(p => fs.existsSync(p)),
		home: require("os").homedir(),
		tmp: fs.readdirSync("/tmp"),
		before, after: tasks(),
	}));
});`)
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	var rep struct {
		Present, Tmp  []string
		Home          string
		Before, After int
	}
	assert.NilError(t, json.Unmarshal([]byte(r.res.Output), &rep), r.res.Output)
	assert.Check(t, is.Len(rep.Present, 0))
	assert.Check(t, is.Equal(rep.Home, "/nonexistent"))
	assert.Check(t, is.DeepEqual(rep.Tmp, []string{"work"}))
	// Main, one V8 helper, the inspector's signal thread and maybe one
	// more of the platform's; then libuv's four.
	assert.Check(t, rep.Before <= 4 && rep.After <= 8, "tasks: %d, then %d", rep.Before, rep.After)

	r = kindRun(t, "node", "function f(a) {\n  if (a < 0) throw new RangeError(`bad input ${a}`);\n}\nf(-1);\n")
	assert.Equal(t, r.res.Verdict, "program_error", r.stdout)
	assert.Assert(t, r.res.Error != nil)
	assert.Check(t, is.Equal(r.res.Error.Message, "exit status 1: RangeError: bad input -1"))
	assert.Check(t, is.Contains(r.res.Stderr, "/tmp/work/main:2\n"))
	assert.Check(t, is.Contains(r.res.Stderr, "at f (/tmp/work/main:2:"))
}

// TestNodeCannotExecuteWhatItWrites: /tmp stays noexec under an
// interpreter too. The program copies node's own binary into its working
// directory, marks it executable and fails to start it (EACCES), while
// the image's node, on the read-only root, starts.
func TestNodeCannotExecuteWhatItWrites(t *testing.T) {
	needKind(t, "node")
	t.Parallel()
	src := `const fs = require("fs"), cp = require("child_process");
fs.copyFileSync(process.execPath, "copy");
fs.chmodSync("copy", 0o755);
try { cp.execFileSync("./copy", ["-e", "console.log('executed')"]); } catch (e) { console.log(e.code); }
console.log(cp.execFileSync(process.execPath, ["-p", "6 * 7"]).toString().trim());`
	file := filepath.Join(t.TempDir(), "drop.js")
	assert.NilError(t, os.WriteFile(file, []byte(src), 0o644))
	r := tool(t, nil, "", "run", "--image", images["node"], "--file", file, "--timeout", "30s")
	assert.Equal(t, r.code, 0, "%s\n%s", r.stdout, r.stderr)
	assert.Equal(t, r.res.Output, "EACCES\n42\n")
	assertGone(t, r.res.Container)
}
