package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestPHPRuns: the php image's declared interpreter runs a hello with no
// ini file read; the image holds no shell, package manager (composer,
// pear, pecl) nor perl; php writes nothing outside the program's working
// directory (HOME is /nonexistent) and runs as one task; a warning goes
// to stderr, not into the output; an uncaught exception is a program
// error named by its message, its trace in stderr.
func TestPHPRuns(t *testing.T) {
	needKind(t, "php")
	t.Parallel()
	r := kindRun(t, "php", "<?php echo 1 + 2, \"\\n\";")
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	assert.Equal(t, r.res.Output, "3\n")
	assert.Check(t, is.Contains(r.stdout, `"interpreter":"php8.2 -n -ddisplay_errors=stderr -dmemory_limit=-1 -"`))

	r = kindRun(t, "php", `<?php
$paths = ["/bin/sh", "/usr/bin/sh", "/bin/bash", "/usr/bin/apt", "/usr/bin/dpkg", "/usr/bin/perl", "/usr/bin/composer", "/usr/bin/pear", "/usr/bin/pecl", "/usr/bin/phar8.2", "/etc/php"];
echo json_encode([
	"present" => array_values(array_filter($paths, "file_exists")),
	"home" => getenv("HOME"),
	"tmp" => array_values(array_diff(scandir("/tmp"), [".", ".."])),
	"tasks" => count(scandir("/proc/self/task")) - 2,
	"ini" => php_ini_loaded_file() !== false || php_ini_scanned_files() !== false,
	"memory_limit" => ini_get("memory_limit"),
]), "\n";
echo $undefined;`)
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	var rep struct {
		Present, Tmp []string
		Home         string
		Tasks        int
		Ini          bool
		MemoryLimit  string `json:"memory_limit"`
	}
	assert.NilError(t, json.Unmarshal([]byte(r.res.Output), &rep), r.res.Output)
	assert.Check(t, is.Len(rep.Present, 0))
	assert.Check(t, is.Equal(rep.Home, "/nonexistent"))
	assert.Check(t, is.DeepEqual(rep.Tmp, []string{"work"}))
	assert.Check(t, is.Equal(rep.Tasks, 1))
	assert.Check(t, !rep.Ini, "no php.ini nor conf.d read")
	assert.Check(t, is.Equal(rep.MemoryLimit, "-1"), "the cgroup's limit, not PHP's own")
	assert.Check(t, is.Equal(r.res.Stderr, "Warning: Undefined variable $undefined in /tmp/work/main on line 11\n"))

	r = kindRun(t, "php", "<?php\nfunction f($a) {\n  if ($a < 0) throw new RangeException(\"bad input $a\");\n}\nf(-1);\n")
	assert.Equal(t, r.res.Verdict, "program_error", r.stdout)
	assert.Assert(t, r.res.Error != nil)
	assert.Check(t, is.Equal(r.res.Error.Message, "exit status 255: Fatal error: Uncaught RangeException: bad input -1 in /tmp/work/main:3"))
	assert.Check(t, is.Equal(r.res.Output, ""), "the error is not in the output")
	assert.Check(t, is.Contains(r.res.Stderr, "#0 /tmp/work/main(5): f(-1)\n"))
}

// TestPHPCannotExecuteWhatItWrites: /tmp stays noexec under PHP. The
// program copies php's own binary into its working directory, marks it
// executable and fails to exec it (pcntl_exec: EACCES, 13), while the
// image's php, on the read-only root, starts (proc_open of an argv, no
// shell).
func TestPHPCannotExecuteWhatItWrites(t *testing.T) {
	needKind(t, "php")
	t.Parallel()
	src := `<?php
copy(PHP_BINARY, "copy");
chmod("copy", 0755);
pcntl_exec("./copy", ["-n", "-r", "echo 'executed';"]);
echo pcntl_get_last_error(), "\n";
$p = proc_open([PHP_BINARY, "-n", "-r", "echo 6 * 7;"], [1 => ["pipe", "w"]], $pipes);
echo stream_get_contents($pipes[1]), "\n";
proc_close($p);`
	file := filepath.Join(t.TempDir(), "drop.php")
	assert.NilError(t, os.WriteFile(file, []byte(src), 0o644))
	r := tool(t, nil, "", "run", "--image", images["php"], "--file", file, "--timeout", "30s")
	assert.Equal(t, r.code, 0, "%s\n%s", r.stdout, r.stderr)
	assert.Equal(t, r.res.Output, "13\n42\n")
	assertGone(t, r.res.Container)
}
