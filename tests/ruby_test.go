package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestRubyRuns: the ruby image's declared interpreter runs a hello, and
// the bundled prime and matrix load with RubyGems off; the image holds
// no shell, package manager nor perl, and neither RubyGems nor its gem
// and bundle commands; ruby writes nothing outside the program's working
// directory (HOME is /nonexistent) and starts one task, three once a
// thread ran (its timer thread, the ended thread kept for reuse); an
// uncaught exception is a program error named by its report's first
// line, the message, its "from" frames in stderr.
func TestRubyRuns(t *testing.T) {
	needKind(t, "ruby")
	t.Parallel()
	r := kindRun(t, "ruby", `require "prime"; require "matrix"; puts 1 + 2, Prime.first(4).inspect, Matrix[[1, 2], [3, 4]].det, $stdin.external_encoding`)
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	assert.Equal(t, r.res.Output, "3\n[2, 3, 5, 7]\n-2\nUTF-8\n")
	assert.Check(t, is.Contains(r.stdout, `"interpreter":"ruby3.1 --disable=gems,did_you_mean,error_highlight -EUTF-8 -"`))

	r = kindRun(t, "ruby", `require "json"
paths = %w[/bin/sh /usr/bin/sh /bin/bash /usr/bin/apt /usr/bin/dpkg /usr/bin/perl /usr/bin/gem /usr/bin/gem3.1 /usr/bin/bundle3.1 /usr/bin/irb3.1 /usr/lib/ruby/3.1.0/rubygems.rb]
tasks = -> { Dir.children("/proc/self/task").size }
before = tasks.()
Thread.new { 6 * 7 }.join
rubygems = begin; require "rubygems"; "loaded"; rescue LoadError; "none"; end
puts JSON.generate(present: paths.select { |p| File.exist?(p) }, home: Dir.home, tmp: Dir.children("/tmp"),
  before: before, after: tasks.(), rubygems: rubygems)`)
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	var rep struct {
		Present, Tmp   []string
		Home, Rubygems string
		Before, After  int
	}
	assert.NilError(t, json.Unmarshal([]byte(r.res.Output), &rep), r.res.Output)
	assert.Check(t, is.Len(rep.Present, 0))
	assert.Check(t, is.Equal(rep.Home, "/nonexistent"))
	assert.Check(t, is.DeepEqual(rep.Tmp, []string{"work"}))
	assert.Check(t, is.Equal(rep.Rubygems, "none"))
	assert.Check(t, rep.Before == 1 && rep.After <= 3, "tasks: %d, then %d", rep.Before, rep.After)

	r = kindRun(t, "ruby", "def f(a)\n  raise RangeError, \"bad input #{a}\" if a < 0\nend\nf(-1)\n")
	assert.Equal(t, r.res.Verdict, "program_error", r.stdout)
	assert.Assert(t, r.res.Error != nil)
	assert.Check(t, is.Equal(r.res.Error.Message, "exit status 1: /tmp/work/main:2:in `f': bad input -1 (RangeError)"))
	assert.Check(t, is.Contains(r.res.Stderr, "\tfrom /tmp/work/main:4:in `<main>'"))

	// did_you_mean off: a misspelt name is one line, the message's.
	r = kindRun(t, "ruby", "total = 1\nputs totl\n")
	assert.Equal(t, r.res.Verdict, "program_error", r.stdout)
	assert.Assert(t, r.res.Error != nil)
	assert.Check(t, is.Equal(r.res.Error.Message, "exit status 1: /tmp/work/main:2:in `<main>': undefined local variable or method `totl' for main:Object (NameError)"))
}

// TestRubyCannotExecuteWhatItWrites: /tmp stays noexec under Ruby. The
// program copies ruby's own binary into its working directory, marks it
// executable and fails to start it (EACCES, spawned without a shell),
// while the image's ruby, on the read-only root, starts.
func TestRubyCannotExecuteWhatItWrites(t *testing.T) {
	needKind(t, "ruby")
	t.Parallel()
	src := `require "rbconfig"
File.binwrite("copy", File.binread(RbConfig.ruby))
File.chmod(0o755, "copy")
begin
  Process.wait(Process.spawn("./copy", "--disable=gems", "-e", "puts :executed"))
rescue SystemCallError => e
  puts e.class
end
puts IO.popen([RbConfig.ruby, "--disable=gems", "-e", "p 6 * 7"], &:read)`
	file := filepath.Join(t.TempDir(), "drop.rb")
	assert.NilError(t, os.WriteFile(file, []byte(src), 0o644))
	r := tool(t, nil, "", "run", "--image", images["ruby"], "--file", file, "--timeout", "30s")
	assert.Equal(t, r.code, 0, "%s\n%s", r.stdout, r.stderr)
	assert.Equal(t, r.res.Output, "Errno::EACCES\n42\n")
	assertGone(t, r.res.Container)
}
