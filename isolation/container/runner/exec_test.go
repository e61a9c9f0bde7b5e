package main

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// TestRunnerExecNamesItsLastWords: a command that fails is named by its
// exit status and the last line it wrote to stderr (a Python exception's
// type and message), bounded; bytes of its output that are not UTF-8 are
// counted as they are replaced.
func TestRunnerExecNamesItsLastWords(t *testing.T) {
	t.Parallel()
	r := runRunner(t, `{"source":"echo Traceback >&2; echo '  File x' >&2; echo 'ZeroDivisionError: division by zero' >&2; echo >&2; exit 1"}`, "--exec", "sh")
	assert.Equal(t, r.Error.Type, protocol.ErrExec)
	assert.Equal(t, r.Error.Message, "exit status 1: ZeroDivisionError: division by zero")

	long := strings.Repeat("é", 150) // 300 bytes
	r = runRunner(t, `{"source":"echo `+long+` >&2; exit 2"}`, "--exec", "sh")
	assert.Equal(t, r.Error.Message, "exit status 2: "+strings.Repeat("é", 100)+"…")

	// V8's and the JVM's stack traces name the exception above their
	// frames; an indented line that is not a frame is the last words.
	r = runRunner(t, `{"source":"printf '/tmp/work/main:2\\n  throw e;\\n\\nError: bad input\\n    at f (/tmp/work/main:2:9)\\n    at node:internal/main:28:49\\n\\n' >&2; exit 1"}`, "--exec", "sh")
	assert.Equal(t, r.Error.Message, "exit status 1: Error: bad input")
	r = runRunner(t, `{"source":"printf 'Exception in thread main E: outer\\n\\tat Main.main(Main.java:5)\\nCaused by: E: inner\\n\\tat Main.f(Main.java:9)\\n\\t... 1 more\\n' >&2; exit 1"}`, "--exec", "sh")
	assert.Equal(t, r.Error.Message, "exit status 1: Caused by: E: inner")
	r = runRunner(t, `{"source":"printf 'at first\\n    at 1\\n\\n    at 2\\n' >&2; exit 1"}`, "--exec", "sh")
	assert.Equal(t, r.Error.Message, "exit status 1: at 2", "frames with no message above them: the last line")
	// Ruby's: tabbed "from" frames, a deep recursion's elided levels.
	src := "printf '/tmp/work/main:1:in \\140f\\047: stack level too deep (SystemStackError)\\n\\tfrom x\\n\\t ... 10068 levels...\\n\\tfrom y\\n' >&2; exit 1"
	r = runRunner(t, `{"source":`+quote(src)+`}`, "--exec", "sh")
	assert.Equal(t, r.Error.Message, "exit status 1: /tmp/work/main:1:in `f': stack level too deep (SystemStackError)")
	// PHP's: the message, "Stack trace:", "#N" frames, "  thrown in".
	r = runRunner(t, `{"source":"printf 'Warning: x\\nFatal error: Uncaught Exception: bad input in /tmp/work/main:3\\nStack trace:\\n#0 /tmp/work/main(5): f(-1)\\n#1 {main}\\n  thrown in /tmp/work/main on line 3\\n' >&2; exit 255"}`, "--exec", "sh")
	assert.Equal(t, r.Error.Message, "exit status 255: Fatal error: Uncaught Exception: bad input in /tmp/work/main:3")
	r = runRunner(t, `{"source":"printf 'Stack trace:\\n#0 x\\n  thrown in y\\n' >&2; exit 1"}`, "--exec", "sh")
	assert.Equal(t, r.Error.Message, "exit status 1: thrown in y", "a PHP trace with no message above it: the last line")
	// Go's runtime names a panic above its goroutines' traces; a panic
	// while another unwinds is the last named; a fatal error's runtime
	// frames come before the goroutine's.
	r = runRunner(t, `{"source":"printf 'panic: bad input -1\\n\\ngoroutine 1 [running]:\\nmain.f(...)\\n\\t/tmp/work/main.go:5\\nmain.main()\\n\\t/tmp/work/main.go:9 +0x1d\\n' >&2; exit 2"}`, "--exec", "sh")
	assert.Equal(t, r.Error.Message, "exit status 2: panic: bad input -1")
	r = runRunner(t, `{"source":"printf 'panic: first [recovered]\\n\\tpanic: second\\n\\ngoroutine 1 [running]:\\nmain.main()\\n\\t/tmp/work/main.go:9 +0x1d\\n' >&2; exit 2"}`, "--exec", "sh")
	assert.Equal(t, r.Error.Message, "exit status 2: panic: second")
	r = runRunner(t, `{"source":"printf 'runtime: goroutine stack exceeds 1000000000-byte limit\\nfatal error: stack overflow\\n\\nruntime stack:\\nruntime.throw()\\n\\t/usr/lib/go-1.19/src/runtime/panic.go:1047 +0x5d\\n\\ngoroutine 1 [running]:\\nmain.f()\\n\\t/tmp/work/main.go:4 +0x4c fp=0xc0200e0398\\n' >&2; exit 2"}`, "--exec", "sh")
	assert.Equal(t, r.Error.Message, "exit status 2: fatal error: stack overflow")
	r = runRunner(t, `{"source":"printf 'goroutine 1 [running]:\\nmain.main()\\n' >&2; exit 2"}`, "--exec", "sh")
	assert.Equal(t, r.Error.Message, "exit status 2: main.main()", "a trace with no message above it: the last line")

	// Rust's panic hook names the panic above a note (or a backtrace);
	// 1.73's puts the message on the line below the place; a line of the
	// program's own after a panic is its last words.
	note := "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace"
	src = "printf 'out\\nthread \\047main\\047 panicked at \\047bad input\\047, main.rs:5:9\\n" + note + "\\n' >&2; exit 101"
	r = runRunner(t, `{"source":`+quote(src)+`}`, "--exec", "sh")
	assert.Equal(t, r.Error.Message, "exit status 101: thread 'main' panicked at 'bad input', main.rs:5:9")
	src = "printf 'thread \\047main\\047 panicked at main.rs:5:9:\\nbad input\\nsecond line\\n" + note + "\\n' >&2; exit 101"
	r = runRunner(t, `{"source":`+quote(src)+`}`, "--exec", "sh")
	assert.Equal(t, r.Error.Message, "exit status 101: thread 'main' panicked at main.rs:5:9: bad input")
	src = "printf 'thread \\047w\\047 panicked at \\047a\\047, main.rs:2:1\\nstack backtrace:\\n   0: f\\n             at main.rs:2:1\\n" +
		"thread \\047main\\047 panicked at \\047b\\047, main.rs:9:1\\nstack backtrace:\\n   0: g\\n' >&2; exit 101"
	r = runRunner(t, `{"source":`+quote(src)+`}`, "--exec", "sh")
	assert.Equal(t, r.Error.Message, "exit status 101: thread 'main' panicked at 'b', main.rs:9:1", "the last panic, its backtrace after it")
	src = "printf 'thread \\047w\\047 panicked at \\047a\\047, main.rs:2:1\\n" + note + "\\nworker failed\\n' >&2; exit 1"
	r = runRunner(t, `{"source":`+quote(src)+`}`, "--exec", "sh")
	assert.Equal(t, r.Error.Message, "exit status 1: worker failed")

	r = runRunner(t, `{"source":"exit 3"}`, "--exec", "sh")
	assert.Equal(t, r.Error.Message, "exit status 3")

	r = runRunner(t, `{"source":"printf '\\372\\373\\374\\375\\376\\377ok'; printf 'e\\377' >&2"}`, "--exec", "sh")
	assert.Assert(t, r.OK, "%+v", r.Error)
	assert.Equal(t, r.Output, "\uFFFDok")
	assert.Equal(t, r.OutputReplaced, int64(6))
	assert.Equal(t, r.OutputBytes, int64(8))
	assert.Equal(t, r.Stderr, "e", "a U+FFFD is three bytes, more than the one byte in the share")
	assert.Equal(t, r.StderrReplaced, int64(1))
}

// TestRunnerHoldsThreadPools: with --threads, every numeric library's
// thread-count variable is set for the interpreter, whatever the
// runner's own environment says.
func TestRunnerHoldsThreadPools(t *testing.T) {
	t.Parallel()
	src := `for v in ` + strings.Join(limits.ThreadVars, " ") + `; do eval "printf '%s=%s ' $v \$$v"; done`
	r := runRunner(t, `{"source":`+quote(src)+`}`, "--threads", "1", "--exec", "sh")
	assert.Assert(t, r.OK, "%+v %s", r.Error, r.Stderr)
	var want strings.Builder
	for _, v := range limits.ThreadVars {
		want.WriteString(v + "=1 ")
	}
	assert.Equal(t, r.Output, want.String())

	r = runRunner(t, `{"source":"echo ${OPENBLAS_NUM_THREADS-unset}"}`, "--exec", "sh")
	assert.Equal(t, r.Output, "unset\n", "no --threads, no variable")
}
