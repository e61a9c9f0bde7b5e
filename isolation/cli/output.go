package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/synapse-lang/synapse-isolation/isolation"
)

// encodeJSON is v as one line of JSON, newline included, the way every
// command prints JSON: <, > and & as themselves, not as \u003c escapes
// (an image ID's placeholder sha256:<64 hex> reads as it is written).
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeJSON writes v to w as encodeJSON spells it; nothing is written if
// v does not encode.
func writeJSON(w io.Writer, v any) error {
	b, err := encodeJSON(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// rejectedResult is the result of a run refused before anything started.
func rejectedResult(err error) isolation.Result {
	v := isolation.Rejected
	return isolation.Result{Verdict: v, Error: &isolation.ErrorDetail{Type: string(v), Message: message(err)}}
}

// reportRejected reports a run refused before anything started: the
// CLI's own rejected result, which names a bad option as its flag.
func reportRejected(c *cli.Context, format string, err error) error {
	return report(c, format, rejectedResult(err), err)
}

// report writes the one result object to stdout and, for every nonzero
// verdict, one line to stderr saying why, so a Makefile that stops on a
// failure shows the reason. It returns the error carrying the exit status.
func report(c *cli.Context, format string, res isolation.Result, err error) error {
	exit := resultStatus(c.Context, res.Verdict)
	var out, progErr []byte
	if format == "json" {
		b, err := encodeJSON(newRecord(res, exit))
		if err != nil {
			return err
		}
		out = b
	} else {
		var buf, errBuf bytes.Buffer
		writeText(&buf, &errBuf, res, exit != 0)
		if res.Compile != nil && res.Compile.Error != nil {
			// What the compiler said: a person fixes the source by it.
			writeStream(&errBuf, res.Compile.Stderr+res.Compile.Output, true)
		}
		fmt.Fprint(&buf, escapeControl(testSummary(res)))
		out, progErr = buf.Bytes(), errBuf.Bytes()
	}
	if _, werr := c.App.Writer.Write(out); werr != nil {
		// The verdict's status would tell a script a result it never got.
		return writeFailed(werr)
	}
	// Text mode: the program's stderr on ours, after its stdout and
	// before the verdict's line.
	_, _ = c.App.ErrWriter.Write(progErr)
	if format != "json" {
		listFiles(c.App.ErrWriter, res.Files)
	}
	if format != "json" && res.OutputReplaced+res.StderrReplaced > 0 {
		// What was written is not what the program wrote: a result is
		// text, so its bytes cannot come back as they were. Said once.
		fmt.Fprintf(c.App.ErrWriter, "synapse-isolation: note: %s not UTF-8, shown as U+FFFD (results carry text, not bytes)\n",
			replacedText(res.OutputReplaced, res.StderrReplaced))
	}
	if exit == 0 {
		return nil
	}
	why := ""
	switch {
	case err != nil:
		why = message(err)
	case res.Error != nil && res.Error.Type == string(res.Verdict):
		// One word for both: "timeout: ...", not "timeout: timeout: ...".
		why = res.Error.Type + ": " + res.Error.Message + position(res.Error)
	case res.Error != nil:
		why = string(res.Verdict) + ": " + res.Error.Type + ": " + res.Error.Message + position(res.Error)
	default:
		why = string(res.Verdict)
	}
	if file, ok := c.App.Metadata[metaProgram].(string); ok {
		// Which of several runs failed, under make -j.
		why = file + ": " + why
	}
	fmt.Fprintf(c.App.ErrWriter, "synapse-isolation: %s\n", oneLine(why))
	return &silentError{code: exit}
}

// listFiles says, for a person, what came back of the files asked for:
// each with its size, or why not; nothing goes to stdout, the program's.
func listFiles(w io.Writer, files map[string]isolation.File) {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if f := files[n]; f.Error != "" {
			fmt.Fprintf(w, "synapse-isolation: file %s: %s\n", oneLine(n), oneLine(f.Error))
		} else {
			fmt.Fprintf(w, "synapse-isolation: file %s: %d bytes\n", oneLine(n), f.Bytes)
		}
	}
}

// replacedText says which streams held bytes that are not UTF-8.
func replacedText(out, errOut int64) string {
	var parts []string
	if out > 0 {
		parts = append(parts, fmt.Sprintf("%d bytes of its stdout", out))
	}
	if errOut > 0 {
		parts = append(parts, fmt.Sprintf("%d bytes of its stderr", errOut))
	}
	return strings.Join(parts, " and ") + " were"
}

// writeFailed is a result that could not be written to stdout: the tool
// failed at its job, whatever the verdict was.
func writeFailed(err error) error {
	return &isolation.Error{Verdict: isolation.EngineFailure, Err: fmt.Errorf("writing the result: %w", err)}
}

// position is " (line L, col C)" for an error with a position.
func position(e *isolation.ErrorDetail) string {
	if e.Line > 0 {
		return fmt.Sprintf(" (line %d, col %d)", e.Line, e.Col)
	}
	return ""
}

// oneLine keeps a diagnostic on one line, control characters escaped.
func oneLine(s string) string {
	return strings.ReplaceAll(escapeControl(s), "\n", `\n`)
}

// writeText prints for a terminal and for a judge's diff: the program's
// stdout to w as it printed it, its stderr to errW, then its value to w.
// A newline is added to a stream only where something follows it on that
// stream (the value line on w; on errW, when verdictLine, report's line
// saying why the verdict is not ok), so stdout alone is byte for byte
// what the program printed, its control characters escaped. A stream
// that was truncated holds its own marker line. An error is not printed
// here but once, on stderr, by report. Control characters from the
// program are escaped so output cannot drive the terminal; the value is
// one line (oneLine), so it cannot print a second result.
func writeText(w, errW io.Writer, res isolation.Result, verdictLine bool) {
	value := ""
	if res.Error == nil && string(res.Result) != "null" && res.Result != nil {
		val := string(res.Result)
		if res.ResultRepr {
			_ = json.Unmarshal(res.Result, &val)
		}
		value = fmt.Sprintf("=> %s (%s)\n", oneLine(val), oneLine(res.ResultType))
	}
	writeStream(w, res.Output, value != "")
	writeStream(errW, res.Stderr, verdictLine)
	fmt.Fprint(w, value)
}

// writeStream writes a program's stream, escaped, with a newline at its
// end if it has none and more follows.
func writeStream(w io.Writer, s string, more bool) {
	fmt.Fprint(w, escapeControl(s))
	if more && s != "" && !strings.HasSuffix(s, "\n") {
		fmt.Fprintln(w)
	}
}

// escapeControl escapes every control character except newline and tab,
// and the Unicode bidirectional overrides that can disguise text.
func escapeControl(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0xfeff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
