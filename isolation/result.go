package isolation

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// Result is the outcome of one run. Its JSON form, which the CLI prints,
// has the same keys for every verdict, null where a field has no value.
type Result struct {
	Verdict Verdict
	// ExitCode is the CLI's exit status for this result: the verdict's
	// (Verdict.ExitCode), except that a run interrupted through a context
	// cancelled with a cause that has an ExitCode() int method takes that
	// (the CLI's signals: 128+signal).
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
	// Sandboxed is true exactly when the runner's hello was judged against
	// the plan and passed, so the request was sent into a proven sandbox:
	// false for in-process eval, for runs refused before docker started,
	// and for containers refused at their hello.
	Sandboxed  bool
	DurationMS int64
	// Timings splits a run's time; each is nil where it does not apply.
	Timings Timings
	// Selfcheck is the runner's view of the sandbox from its hello; it is
	// set whenever a hello could be decoded, even one that failed the
	// judgement.
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

// Timings splits a run's time, in milliseconds unless named otherwise,
// each null where it does not apply. The phases follow the handshake: the
// container starts and says hello; the host judges the hello and sends the
// request; the runner runs the program and responds; the container goes.
type Timings struct {
	// WaitMS (batch) is from reading the request to giving it a warm
	// container, whose start and hello happened before the request.
	WaitMS *int64 `json:"wait_ms"`
	// StartMS is from starting docker run to the runner's hello arriving:
	// the container's creation and start and the runner's selfcheck. Null
	// for a warm container.
	StartMS *int64 `json:"start_ms"`
	// HandshakeUS is the runner's own time, in microseconds, from writing
	// its hello to reading the request: the host's judgement and the
	// request's way in.
	HandshakeUS *int64 `json:"handshake_us"`
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

// exitCoder is a cancellation cause that names its own exit status, as the
// CLI's signals do (128+signal).
type exitCoder interface{ ExitCode() int }

// exitCodeOf is the verdict's exit status; an interrupted run takes its
// cause's own when the cause names one.
func exitCodeOf(v Verdict, err error) int {
	var ec exitCoder
	if v == Interrupted && errors.As(err, &ec) {
		return ec.ExitCode()
	}
	return v.ExitCode()
}

// result builds the attempt's Result once, from what it learned and the
// error that ended it.
func (a *attempt) result(err error) Result {
	// From the call to the return, cleanup included, whatever the verdict.
	returned := time.Now()
	res := Result{ContainerExit: a.exit, Sandboxed: a.sandboxed, Selfcheck: a.selfcheck, DurationMS: returned.Sub(a.start).Milliseconds()}
	if a.plan != nil {
		res.Image, res.RunID = a.plan.Image, a.plan.RunID
		if a.started {
			res.Container = a.plan.Name
		}
	}
	switch r := a.response; {
	case err != nil:
		res.Verdict = verdictOf(err)
		res.Error = &protocol.Error{Type: string(res.Verdict), Message: err.Error()}
	case r != nil:
		res.Verdict = OK
		if !r.OK {
			res.Verdict = ProgramError
		}
		res.Result, res.ResultType, res.ResultRepr = r.Result, r.ResultType, r.ResultRepr
		if string(res.Result) == "null" {
			res.Result = nil // none, as documented: the wire says null
		}
		res.Output, res.OutputTruncated, res.OutputBytes = r.Output, r.OutputTruncated, r.OutputBytes
		res.Error, res.Exec = r.Error, r.Exit
	}
	res.ExitCode = exitCodeOf(res.Verdict, err)
	res.Timings = a.timings(returned)
	return res
}

// timings splits the attempt's time; the runner's own times are its word,
// so each is bounded by what the host measured around it.
func (a *attempt) timings(returned time.Time) Timings {
	ms := func(d time.Duration) *int64 {
		v := max(d, 0).Milliseconds()
		return &v
	}
	var t Timings
	if !a.assigned.IsZero() {
		t.WaitMS = ms(a.assigned.Sub(a.start))
	} else if !a.hello.IsZero() {
		t.StartMS = ms(a.hello.Sub(a.launched))
	}
	if !a.responded.IsZero() && !a.sent.IsZero() {
		around := max(a.responded.Sub(a.sent), 0)
		exec := min(max(a.elapsed, 0), around)
		t.ExecMS = ms(exec)
		// The handshake began before the request was sent; bound it by
		// the hello's arrival where the host saw that, else by the wait.
		bound := around - exec
		if !a.hello.IsZero() {
			bound += a.sent.Sub(a.hello)
		} else if !a.assigned.IsZero() {
			bound += a.assigned.Sub(a.start)
		}
		hs := min(max(a.handshook, 0), max(bound, 0)).Microseconds()
		if a.handshook > 0 && hs == 0 {
			hs = 1
		}
		t.HandshakeUS = &hs
		t.CleanupMS = ms(returned.Sub(a.responded))
	} else if !a.end.IsZero() {
		t.CleanupMS = ms(returned.Sub(a.end))
	}
	return t
}
