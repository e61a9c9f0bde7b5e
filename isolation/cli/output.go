package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
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
func rejectedResult(err error) isolation.Result { return errorResult(protocol.Rejected, message(err)) }

// errorResult is a result that is only its verdict and why.
func errorResult(v isolation.Verdict, msg string) isolation.Result {
	return isolation.Result{Verdict: v, Error: &protocol.Error{Type: string(v), Message: msg}}
}

// resultOut is how run and eval print their one result: in format, and
// with a failure's line naming the file the program came from (--file),
// so one of several runs that failed (make -j) is known.
type resultOut struct{ format, program string }

// reject reports a run refused before anything started: the CLI's own
// rejected result, which names a bad option as its flag.
func (s *session) reject(ctx context.Context, out resultOut, err error) error {
	return s.report(ctx, out, rejectedResult(err), err)
}

// report writes the one result object to stdout and, for every nonzero
// verdict, one line to stderr saying why, so a Makefile that stops on a
// failure shows the reason. It returns the error carrying the exit status.
func (s *session) report(ctx context.Context, out resultOut, res isolation.Result, err error) error {
	exit := resultStatus(ctx, res.Verdict)
	var stdout, stderr []byte
	if out.format == "json" {
		b, err := encodeJSON(newRecord(res, exit))
		if err != nil {
			return err
		}
		stdout = b
	} else {
		stdout, stderr = textResult(res, exit != 0)
	}
	if _, werr := s.stdout.Write(stdout); werr != nil {
		// The verdict's status would tell a script a result it never got.
		return writeFailed(werr)
	}
	_, _ = s.stderr.Write(stderr)
	if exit == 0 {
		return nil
	}
	why := whyNotOK(res, err)
	if out.program != "" {
		why = out.program + ": " + why
	}
	fmt.Fprintf(s.stderr, "synapse-isolation: %s\n", oneLine(why))
	return &silentError{code: exit}
}

// whyNotOK says why a result's verdict is not ok.
func whyNotOK(res isolation.Result, err error) string {
	switch {
	case err != nil:
		return message(err)
	case res.Error != nil && res.Error.Type == string(res.Verdict):
		// One word for both: "timeout: ...", not "timeout: timeout: ...".
		return res.Error.Type + ": " + res.Error.Message + position(res.Error)
	case res.Error != nil:
		return string(res.Verdict) + ": " + res.Error.Type + ": " + res.Error.Message + position(res.Error)
	}
	return string(res.Verdict)
}

// textResult is what --format text writes: on stdout the program's
// stdout, its value and the tests' verdicts; on stderr the program's
// stderr, what the compiler said (a person fixes the source by it), the
// files that came back and a note of bytes that were not UTF-8.
func textResult(res isolation.Result, verdictLine bool) (stdout, stderr []byte) {
	var out, errOut bytes.Buffer
	writeText(&out, &errOut, res, verdictLine)
	if res.Compile != nil && res.Compile.Error != nil {
		writeStream(&errOut, res.Compile.Stderr+res.Compile.Output, true)
	}
	fmt.Fprint(&out, escapeControl(testSummary(res)))
	listFiles(&errOut, res.Files)
	if res.OutputReplaced+res.StderrReplaced > 0 {
		// What was written is not what the program wrote: a result is
		// text, so its bytes cannot come back as they were. Said once.
		fmt.Fprintf(&errOut, "synapse-isolation: note: %s not UTF-8, shown as U+FFFD (results carry text, not bytes)\n",
			replacedText(res.OutputReplaced, res.StderrReplaced))
	}
	return out.Bytes(), errOut.Bytes()
}

// listFiles says, for a person, what came back of the files asked for:
// each with its size, or why not; nothing goes to stdout, the program's.
func listFiles(w io.Writer, files map[string]protocol.File) {
	for _, n := range slices.Sorted(maps.Keys(files)) {
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

// position is " (line L, col C)" for an error with a position.
func position(e *protocol.Error) string {
	if e.Line > 0 {
		return fmt.Sprintf(" (line %d, col %d)", e.Line, e.Col)
	}
	return ""
}

// writeText prints for a terminal and for a judge's diff: the program's
// stdout to w, its stderr to errW, then its value to w. A newline is added
// to a stream only where something follows it there (the value line; on
// errW, when verdictLine, report's line saying why), so stdout alone is
// byte for byte what the program printed. Control characters are escaped
// so output cannot drive the terminal, and the value is one line, so it
// cannot print a second result; an error is printed once, by report.
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

// record is the JSON form of a result that run, eval and batch print: the
// same keys for every verdict, null where a field has no value, and the
// exit status the CLI gives it.
type record struct {
	Verdict    isolation.Verdict `json:"verdict"`
	ExitCode   int               `json:"exit_code"`
	Result     json.RawMessage   `json:"result"`
	ResultType *string           `json:"result_type"`
	ResultRepr bool              `json:"result_repr"`
	protocol.Streams
	Error         *protocol.Error   `json:"error"`
	ExecExit      *execExit         `json:"exec_exit"`
	ContainerExit *int              `json:"container_exit"`
	RunID         *string           `json:"run_id"`
	Container     *string           `json:"container"`
	Image         *string           `json:"image"`
	Interpreter   *string           `json:"interpreter"`
	Sandboxed     bool              `json:"sandboxed"`
	DurationMS    int64             `json:"duration_ms"`
	Timings       isolation.Timings `json:"timings"`
	Usage         isolation.Usage   `json:"usage"`
	// Files are the collected files: null when none were asked for,
	// {} when none matched.
	Files map[string]fileRecord `json:"files"`
	// Compile is the compile step of an image's language that has one,
	// Tests a judge's request's results: null without.
	Compile *stepRecord  `json:"compile"`
	Tests   []testRecord `json:"tests"`
	// Checker is --checker's own run, which graded the tests; absent
	// without one.
	Checker *checkerRecord `json:"checker,omitempty"`
	// Interactor is --interactor's own run, which talked with the
	// program and graded the tests; absent without one.
	Interactor *checkerRecord `json:"interactor,omitempty"`
}

// stepRecord is a compile step as the result prints it, its exit as
// exec_exit's.
type stepRecord struct {
	isolation.Step
	Exit *execExit `json:"exit"`
}

// testRecord is a test's result as the result prints it.
type testRecord struct {
	isolation.TestResult
	Exit *execExit `json:"exit"`
}

// fileRecord is a collected file as the result prints it: its size,
// SHA-256 and base64, or why it was not returned.
type fileRecord protocol.File

func (f fileRecord) MarshalJSON() ([]byte, error) {
	if f.Error != "" {
		return json.Marshal(struct {
			Error string `json:"error"`
		}{f.Error})
	}
	return json.Marshal(struct {
		Bytes  int64  `json:"bytes"`
		SHA256 string `json:"sha256"`
		Base64 []byte `json:"base64"`
	}{f.Bytes, f.SHA256, append([]byte{}, f.Data...)})
}

// newRecord is res's record, with the exit status exit.
func newRecord(res isolation.Result, exit int) record {
	orNull := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	value := res.Result
	if len(value) == 0 {
		value = json.RawMessage("null")
	}
	r := record{
		Verdict: res.Verdict, ExitCode: exit, Result: value, ResultType: orNull(res.ResultType), ResultRepr: res.ResultRepr,
		Streams: res.Streams, Error: res.Error,
		ExecExit: newExecExit(res.Exec), ContainerExit: res.ContainerExit, RunID: orNull(res.RunID), Container: orNull(res.Container), Image: orNull(res.Image),
		Interpreter: orNull(res.Interpreter),
		Sandboxed:   res.Sandboxed, DurationMS: res.DurationMS, Timings: res.Timings,
	}
	if res.Usage != nil {
		r.Usage = *res.Usage
	}
	if res.Compile != nil {
		r.Compile = &stepRecord{Step: *res.Compile, Exit: newExecExit(res.Compile.Exit)}
	}
	if res.Tests != nil {
		r.Tests = make([]testRecord, len(res.Tests))
		for i, t := range res.Tests {
			r.Tests[i] = testRecord{TestResult: t, Exit: newExecExit(t.Exit)}
		}
	}
	r.Checker, r.Interactor = newCheckerRecord(res.Checker), newCheckerRecord(res.Interactor)
	if res.Files != nil {
		r.Files = make(map[string]fileRecord, len(res.Files))
		for name, f := range res.Files {
			r.Files[name] = fileRecord(f)
		}
	}
	return r
}

// checkerRecord is the checker's run, or the interactor's, as a result
// gives it: its compile step with its exit as a step's.
type checkerRecord struct {
	isolation.CheckerPass
	Compile *stepRecord `json:"compile"`
}

// newCheckerRecord is c's record; nil for nil.
func newCheckerRecord(c *isolation.CheckerPass) *checkerRecord {
	if c == nil {
		return nil
	}
	r := &checkerRecord{CheckerPass: *c}
	if c.Compile != nil {
		r.Compile = &stepRecord{Step: *c.Compile, Exit: newExecExit(c.Compile.Exit)}
	}
	return r
}

// batchRecord is a batch's result line: the request's id (null when the
// line had none) and line number, then the record.
type batchRecord struct {
	ID   json.RawMessage `json:"id"`
	Line int             `json:"line"`
	record
}

// execExit is how an exec-mode interpreter ended, with both keys always
// there for scripts: {"code": 0, "signal": null} when it exited,
// {"code": null, "signal": "killed"} when a signal ended it (the
// runner's code -1 then stands for no code at all).
type execExit struct {
	Code   *int    `json:"code"`
	Signal *string `json:"signal"`
}

// newExecExit is e's record; null (nil) in Starlark mode, where nothing
// was executed.
func newExecExit(e *protocol.Exit) *execExit {
	if e == nil {
		return nil
	}
	if e.Signal != "" {
		return &execExit{Signal: &e.Signal}
	}
	return &execExit{Code: &e.Code}
}
