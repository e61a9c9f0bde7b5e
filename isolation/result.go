package isolation

import (
	"encoding/json"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// Result is the outcome of one run, as the CLI prints it in JSON.
type Result struct {
	Verdict Verdict `json:"verdict"`
	// ExitCode is the CLI's exit status for this result.
	ExitCode int `json:"exit_code"`
	// Result, ResultType and ResultRepr are the program's value (see protocol.Response).
	Result     json.RawMessage `json:"result"`
	ResultType string          `json:"result_type,omitempty"`
	ResultRepr bool            `json:"result_repr,omitempty"`
	// Output is the program's captured output; it is discarded on timeout.
	Output          string `json:"output"`
	OutputTruncated bool   `json:"output_truncated"`
	OutputBytes     int64  `json:"output_bytes"`
	// Error is the program's error or the reason the run failed.
	Error *protocol.Error `json:"error"`
	// Exec is the exit of an exec-mode command.
	Exec *protocol.Exit `json:"exec_exit,omitempty"`
	// ContainerExit is the exit status of `docker run`, when it exited.
	ContainerExit *int `json:"container_exit,omitempty"`
	// Container and Image identify the container; empty for in-process eval.
	Container string `json:"container,omitempty"`
	Image     string `json:"image,omitempty"`
	// Sandboxed is true when the request went to a container: false for
	// in-process eval and for runs refused before docker was called.
	Sandboxed  bool  `json:"sandboxed"`
	DurationMS int64 `json:"duration_ms"`
	// Selfcheck is the runner's report in selfcheck mode.
	Selfcheck *protocol.Selfcheck `json:"selfcheck,omitempty"`
}

// ResultFromResponse fills a result from a valid response: ok, program
// error, or timeout when the program was stopped by its own deadline (its
// partial output is then discarded, as on a host timeout).
func ResultFromResponse(r protocol.Response, took time.Duration) Result {
	v := OK
	switch {
	case r.Error != nil && r.Error.Type == protocol.ErrTimeout:
		v = Timeout
		r.Output, r.OutputBytes, r.OutputTruncated = "", 0, false
	case !r.OK:
		v = ProgramError
	}
	res := Result{
		Verdict: v, ExitCode: v.ExitCode(), Result: r.Result, ResultType: r.ResultType, ResultRepr: r.ResultRepr,
		Output: r.Output, OutputTruncated: r.OutputTruncated, OutputBytes: r.OutputBytes,
		Error: r.Error, Exec: r.Exit, Selfcheck: r.Selfcheck, DurationMS: took.Milliseconds(),
	}
	if len(res.Result) == 0 {
		res.Result = json.RawMessage("null")
	}
	return res
}

// failed fills a result for a run that produced no usable response.
func failed(err error, took time.Duration) Result {
	v := VerdictOf(err)
	return Result{
		Verdict: v, ExitCode: v.ExitCode(), Result: json.RawMessage("null"),
		Error:      &protocol.Error{Type: string(v), Message: err.Error()},
		DurationMS: took.Milliseconds(),
	}
}
