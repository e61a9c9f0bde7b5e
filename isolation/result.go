package isolation

import (
	"encoding/json"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// Result is the outcome of one run. Its JSON form, which the CLI prints,
// has the same keys for every verdict, null where a field has no value.
type Result struct {
	Verdict Verdict
	// ExitCode is the CLI's exit status for this result.
	ExitCode int
	// Result, ResultType and ResultRepr are the program's value (see
	// protocol.Response); Result is nil when there is none.
	Result     json.RawMessage
	ResultType string
	ResultRepr bool
	// Output is the program's captured output; it is discarded unless the
	// verdict is ok or program_error.
	Output          string
	OutputTruncated bool
	OutputBytes     int64
	// Error is the program's error or the reason the run failed.
	Error *protocol.Error
	// Exec is the exit of an exec-mode command.
	Exec *protocol.Exit
	// ContainerExit is the exit status of `docker run`, when it exited.
	ContainerExit *int
	// RunID, Container and Image identify the run and its container; empty
	// when no container was planned (in-process eval, a rejected run).
	RunID     string
	Container string
	Image     string
	// Sandboxed is true when the request went to docker: false for
	// in-process eval and for runs refused before docker was started.
	Sandboxed  bool
	DurationMS int64
	// Timings splits a run's time; each is nil where it does not apply.
	Timings Timings
	// Selfcheck is the runner's view of the sandbox, read before the
	// program ran; it is set whenever a response could be decoded, even one
	// whose attestation failed.
	Selfcheck *protocol.Selfcheck
}

// resultJSON is the wire form of Result: every key, always.
type resultJSON struct {
	Verdict         Verdict         `json:"verdict"`
	ExitCode        int             `json:"exit_code"`
	Result          json.RawMessage `json:"result"`
	ResultType      *string         `json:"result_type"`
	ResultRepr      bool            `json:"result_repr"`
	Output          string          `json:"output"`
	OutputTruncated bool            `json:"output_truncated"`
	OutputBytes     int64           `json:"output_bytes"`
	Error           *protocol.Error `json:"error"`
	ExecExit        *protocol.Exit  `json:"exec_exit"`
	ContainerExit   *int            `json:"container_exit"`
	RunID           *string         `json:"run_id"`
	Container       *string         `json:"container"`
	Image           *string         `json:"image"`
	Sandboxed       bool            `json:"sandboxed"`
	DurationMS      int64           `json:"duration_ms"`
	Timings         Timings         `json:"timings"`
}

// Timings splits a run's time, in milliseconds, each null where it does
// not apply.
type Timings struct {
	// WaitMS (batch) is from reading the request to giving it a container.
	WaitMS *int64 `json:"wait_ms"`
	// StartMS is from writing the request to the runner having it: the
	// container's creation and start for a run, the delivery for a warm one.
	StartMS *int64 `json:"start_ms"`
	// ExecMS is the runner's own time from the request to its response.
	ExecMS *int64 `json:"exec_ms"`
	// CleanupMS is from the response (or the client's end, when there was
	// none) to the container gone: its exit, --rm, any removal.
	CleanupMS *int64 `json:"cleanup_ms"`
}

// MarshalJSON writes every key for every verdict, null for no value.
func (r Result) MarshalJSON() ([]byte, error) {
	orNull := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	value := r.Result
	if len(value) == 0 {
		value = json.RawMessage("null")
	}
	return json.Marshal(resultJSON{
		Verdict: r.Verdict, ExitCode: r.ExitCode, Result: value, ResultType: orNull(r.ResultType), ResultRepr: r.ResultRepr,
		Output: r.Output, OutputTruncated: r.OutputTruncated, OutputBytes: r.OutputBytes, Error: r.Error,
		ExecExit: r.Exec, ContainerExit: r.ContainerExit, RunID: orNull(r.RunID), Container: orNull(r.Container), Image: orNull(r.Image),
		Sandboxed: r.Sandboxed, DurationMS: r.DurationMS, Timings: r.Timings,
	})
}

// result builds the attempt's Result once, from what it learned and the
// error that ended it.
func (a *attempt) result(err error) Result {
	end := a.end
	if end.IsZero() {
		end = time.Now()
	}
	res := Result{ContainerExit: a.exit, Sandboxed: a.started, Selfcheck: a.selfcheck, DurationMS: end.Sub(a.start).Milliseconds()}
	if a.plan != nil {
		res.Image, res.RunID = a.plan.Image, a.plan.RunID
		if a.started {
			res.Container = a.plan.Name
		}
	}
	switch r := a.response; {
	case err != nil:
		res.Verdict = VerdictOf(err)
		res.Error = &protocol.Error{Type: string(res.Verdict), Message: err.Error()}
	case r != nil:
		res.Verdict = OK
		if !r.OK {
			res.Verdict = ProgramError
		}
		res.Result, res.ResultType, res.ResultRepr = r.Result, r.ResultType, r.ResultRepr
		res.Output, res.OutputTruncated, res.OutputBytes = r.Output, r.OutputTruncated, r.OutputBytes
		res.Error, res.Exec = r.Error, r.Exit
	}
	res.ExitCode = res.Verdict.ExitCode()
	res.Timings = a.timings(time.Now())
	return res
}

// timings splits the attempt's time; the runner's own elapsed time is its
// word, so it is bounded by what the host measured around it.
func (a *attempt) timings(returned time.Time) Timings {
	ms := func(d time.Duration) *int64 {
		v := max(d, 0).Milliseconds()
		return &v
	}
	var t Timings
	if !a.assigned.IsZero() {
		t.WaitMS = ms(a.assigned.Sub(a.start))
	}
	if !a.responded.IsZero() && !a.sent.IsZero() {
		around := a.responded.Sub(a.sent)
		exec := min(max(a.elapsed, 0), max(around, 0))
		t.ExecMS, t.StartMS = ms(exec), ms(around-exec)
		t.CleanupMS = ms(returned.Sub(a.responded))
	} else if !a.end.IsZero() {
		t.CleanupMS = ms(returned.Sub(a.end))
	}
	return t
}
