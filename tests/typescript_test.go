package tests

import (
	"encoding/json"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestTypeScriptRuns: the typescript image compiles a hello once (tsc,
// node's declarations found) and node runs what it wrote; the image holds
// no shell, package manager (npm included) nor perl, nor tsc's scripts;
// node writes nothing outside the program's working directory and keeps
// to a few tasks, its libuv pool started; an uncaught exception is a
// program error named by its message, its stack in stderr naming
// main.ts's lines (the source map); a type error is a compile error.
func TestTypeScriptRuns(t *testing.T) {
	needKind(t, "typescript")
	t.Parallel()
	r := compiledRun(t, "typescript", "const n: number = 1 + 2;\nconsole.log(n);\n")
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	assert.Equal(t, r.res.Output, "3\n")
	assert.Check(t, is.Contains(r.stdout, `"interpreter":"node --v8-pool-size=1 --no-extra-info-on-fatal-exception --enable-source-maps main.js"`))

	r = compiledRun(t, "typescript", `import fs from "fs";
import * as os from "os";
import { pbkdf2 } from "crypto";
const paths: string[] = ["/bin/sh", "/usr/bin/sh", "/bin/bash", "/usr/bin/apt", "/usr/bin/dpkg", "/usr/bin/perl",
	"/usr/bin/npm", "/usr/share/nodejs/npm", "/usr/bin/env", "/usr/bin/tsc", "/usr/share/nodejs/typescript/lib/tsserver.js"];
const tasks = (): number => fs.readdirSync("/proc/self/task").length;
const before = tasks();
pbkdf2("a", "b", 1, 8, "sha1", () => {
	console.log(JSON.stringify({
		present: paths.filter((p) => fs.existsSync(p)),
		home: os.homedir(),
		tmp: fs.readdirSync("/tmp"),
		dir: fs.readdirSync("."),
		before, after: tasks(),
	}));
});
`)
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	var rep struct {
		Present, Tmp, Dir []string
		Home              string
		Before, After     int
	}
	assert.NilError(t, json.Unmarshal([]byte(r.res.Output), &rep), r.res.Output)
	assert.Check(t, is.Len(rep.Present, 0))
	assert.Check(t, is.Equal(rep.Home, "/nonexistent"))
	assert.Check(t, is.DeepEqual(rep.Tmp, []string{"work"}))
	assert.Check(t, is.DeepEqual(rep.Dir, []string{"main.js", "main.js.map", "main.ts"}))
	// As the node image's: main, one V8 helper, the inspector's signal
	// thread and maybe one more of the platform's; then libuv's four.
	assert.Check(t, rep.Before <= 4 && rep.After <= 8, "tasks: %d, then %d", rep.Before, rep.After)

	r = compiledRun(t, "typescript", "function f(a: number): void {\n  if (a < 0) throw new RangeError(`bad input ${a}`);\n}\nf(-1);\n")
	assert.Equal(t, r.res.Verdict, "program_error", r.stdout)
	assert.Assert(t, r.res.Error != nil)
	assert.Check(t, is.Equal(r.res.Error.Message, "exit status 1: RangeError: bad input -1"))
	assert.Check(t, is.Contains(r.res.Stderr, "/tmp/work/main.ts:2\n"))
	assert.Check(t, is.Contains(r.res.Stderr, "at f (/tmp/work/main.ts:2:"))

	r = compiledRun(t, "typescript", "const n: number = \"three\";\nconsole.log(n);\n")
	assert.Equal(t, r.res.Verdict, "compile_error", r.stdout)
	assert.Assert(t, r.res.Error != nil)
	assert.Check(t, is.Equal(r.res.Error.Message,
		"compilation failed: exit status 2: main.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'."))
}

// TestTypeScriptCannotExecuteWhatItWrites: /tmp stays noexec under the
// compiled JavaScript too. The program copies node's own binary into its
// working directory, marks it executable and fails to start it
// (EACCES), while the image's node, on the read-only root, starts.
func TestTypeScriptCannotExecuteWhatItWrites(t *testing.T) {
	needKind(t, "typescript")
	t.Parallel()
	r := compiledRun(t, "typescript", `import * as fs from "fs";
import * as cp from "child_process";
fs.copyFileSync(process.execPath, "copy");
fs.chmodSync("copy", 0o755);
try {
	cp.execFileSync("./copy", ["-e", "console.log('executed')"]);
} catch (e) {
	console.log((e as NodeJS.ErrnoException).code);
}
console.log(cp.execFileSync(process.execPath, ["-p", "6 * 7"]).toString().trim());
`)
	assert.Equal(t, r.code, 0, "%s\n%s", r.stdout, r.stderr)
	assert.Equal(t, r.res.Output, "EACCES\n42\n")
}
