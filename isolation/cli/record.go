package cli

import (
	"encoding/json"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

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
	Error         *isolation.ErrorDetail `json:"error"`
	ExecExit      *execExit              `json:"exec_exit"`
	ContainerExit *int                   `json:"container_exit"`
	RunID         *string                `json:"run_id"`
	Container     *string                `json:"container"`
	Image         *string                `json:"image"`
	Interpreter   *string                `json:"interpreter"`
	Sandboxed     bool                   `json:"sandboxed"`
	DurationMS    int64                  `json:"duration_ms"`
	Timings       isolation.Timings      `json:"timings"`
	Usage         isolation.Usage        `json:"usage"`
	// Files are the collected files: null when none were asked for,
	// {} when none matched.
	Files map[string]fileRecord `json:"files"`
	// Compile is the compile step of an image's language that has one,
	// Tests a judge's request's results: null without.
	Compile *stepRecord  `json:"compile"`
	Tests   []testRecord `json:"tests"`
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
type fileRecord isolation.File

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
	if res.Files != nil {
		r.Files = make(map[string]fileRecord, len(res.Files))
		for name, f := range res.Files {
			r.Files[name] = fileRecord(f)
		}
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
func newExecExit(e *isolation.ExecExit) *execExit {
	if e == nil {
		return nil
	}
	if e.Signal != "" {
		return &execExit{Signal: &e.Signal}
	}
	return &execExit{Code: &e.Code}
}
