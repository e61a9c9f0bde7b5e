package main

import (
	"strings"
	"unicode/utf8"
)

// maxLastLine bounds the stderr line an exec error message quotes.
const maxLastLine = 200

// lastLine is the last line of text that is not blank, trimmed, cut to
// maxLastLine bytes; above a stack trace that ends the text, the line
// just above its frames. Python names the exception last, but V8, the
// JVM, Ruby and PHP name it first and write their frames after it
// ("Error: bad input", then "    at f (/tmp/work/main:2:20)"), and a
// frame says where, not what. Go's runtime names a panic or a fatal
// error above its goroutines' traces (goPanic); Rust's, above a note on
// how to see its backtrace (rustPanic).
func lastLine(text string) string {
	lines := strings.Split(strings.TrimRight(text, " \t\r\n"), "\n")
	if msg, ok := goPanic(lines); ok {
		return cut(msg, maxLastLine)
	}
	if msg, ok := rustPanic(lines); ok {
		return cut(msg, maxLastLine)
	}
	last := len(lines) - 1
	if i := phpMessage(lines); i >= 0 {
		return cut(strings.TrimSpace(lines[i]), maxLastLine)
	}
	for i := last; i > 0 && isFrame(lines[i]); i-- {
		if above := lines[i-1]; !isFrame(above) && strings.TrimSpace(above) != "" {
			last = i - 1
		}
	}
	return cut(strings.TrimSpace(lines[last]), maxLastLine)
}

// goPanic is the message of the Go runtime's traceback in lines: the
// last "panic: " or "fatal error: " line above the first goroutine's
// header ("goroutine 1 [running]:"), trimmed. A panic raised while
// another was being handled is the last, indented below the first
// ("panic: a [recovered]", then "\tpanic: b"); a fatal error's own
// frames ("runtime stack:") come before the header.
func goPanic(lines []string) (string, bool) {
	msg := ""
	for _, line := range lines {
		if isGoroutineHeader(line) {
			return msg, msg != ""
		}
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "panic: ") || strings.HasPrefix(t, "fatal error: ") {
			msg = t
		}
	}
	return "", false
}

// rustPanic is the message of the Rust panic that ends lines: its last
// "thread 'NAME' panicked at " line, trimmed (Rust 1.63's: "thread
// 'main' panicked at 'bad input', main.rs:5:9"). Rust 1.73 and later end
// that line with the place and a colon and write the message below it,
// up to the hook's note or backtrace; its first line is joined on. Only
// what the panic hook writes may follow: blank lines, its notes ("note:
// run with `RUST_BACKTRACE=1` environment variable to display a
// backtrace"), a backtrace (its header and indented frames), and the
// abort of a panic while panicking; after a line of the program's own,
// lastLine's rule names that line instead.
func rustPanic(lines []string) (string, bool) {
	at := -1
	for i, line := range lines {
		if strings.HasPrefix(line, "thread '") && strings.Contains(line, "' panicked at ") {
			at = i
		}
	}
	if at < 0 {
		return "", false
	}
	msg, rest := strings.TrimSpace(lines[at]), lines[at+1:]
	if strings.HasSuffix(msg, ":") && len(rest) > 0 && !isRustHookLine(rest[0]) {
		msg += " " + strings.TrimSpace(rest[0])
		for len(rest) > 0 && !isRustHookLine(rest[0]) {
			rest = rest[1:]
		}
	}
	for _, line := range rest {
		t := strings.TrimSpace(line)
		if !isRustHookLine(line) && t != "" && t == line && t != "thread caused non-unwinding panic. aborting." {
			return "", false
		}
	}
	return msg, true
}

// isRustHookLine reports whether line begins what Rust's panic hook
// writes after a panic's message: a note, or a backtrace's header.
func isRustHookLine(line string) bool {
	return strings.HasPrefix(line, "note: ") || line == "stack backtrace:"
}

// isGoroutineHeader reports whether line begins a goroutine's trace in
// the Go runtime's traceback: "goroutine N [STATE]:".
func isGoroutineHeader(line string) bool {
	rest, ok := strings.CutPrefix(line, "goroutine ")
	n, rest, ok2 := strings.Cut(rest, " [")
	if !ok || !ok2 || n == "" || strings.Trim(n, "0123456789") != "" {
		return false
	}
	return strings.HasSuffix(rest, "]:")
}

// isFrame reports whether line is a frame of a V8, JVM or Ruby stack
// trace: indented "at ...", the JVM's "... N more", Ruby's tabbed
// "from ..." and "... N levels...".
func isFrame(line string) bool {
	t := strings.TrimSpace(line)
	if t == line {
		return false // frames are indented
	}
	return strings.HasPrefix(t, "at ") || strings.HasPrefix(t, "... ") && strings.HasSuffix(t, " more") ||
		strings.HasPrefix(line, "\tfrom ") || strings.HasPrefix(line, "\t ... ") && strings.HasSuffix(t, " levels...")
}

// phpMessage is the index in lines of the message of the PHP uncaught
// exception that ends them, -1 if none does: PHP writes its message
// ("Fatal error: Uncaught E: bad input in /tmp/work/main:3"), then
// "Stack trace:", frames "#0 ...", and last "  thrown in FILE on line N",
// none of them indented but the last.
func phpMessage(lines []string) int {
	i := len(lines) - 1
	if !strings.HasPrefix(lines[i], "  thrown in ") {
		return -1
	}
	for i--; i > 0 && isPHPFrame(lines[i]); i-- {
	}
	if i < 1 || lines[i] != "Stack trace:" || strings.TrimSpace(lines[i-1]) == "" {
		return -1
	}
	return i - 1
}

// isPHPFrame reports whether line is a frame of a PHP stack trace: "#N "
// and the call, or "#N {main}".
func isPHPFrame(line string) bool {
	n, ok := strings.CutPrefix(line, "#")
	digits := len(n) - len(strings.TrimLeft(n, "0123456789"))
	return ok && digits > 0 && strings.HasPrefix(n[digits:], " ")
}

// cut is s, or when it is longer than n bytes its first n at most, cut at
// a character boundary, "…" marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
