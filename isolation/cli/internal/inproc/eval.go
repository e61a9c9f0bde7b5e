// Package inproc is the trusted, in-process evaluator behind the CLI's
// eval command: a run's Result with no container at all, for trusted code
// only. It stands outside package isolation so a library caller, whose
// every run is isolated, has no unsandboxed way in.
package inproc

import (
	"context"
	"fmt"
	"syscall"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/isolation/container/interp"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// processCPU is this process's CPU time, user plus system; -1 if unknown.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Eval evaluates trusted Starlark source in this process, with NO
// isolation, for at most timeout. Its result has a run's shape: ok, program_error, or
// timeout (partial output discarded, as Run does), never sandboxed. The
// source and the timeout are checked as Run checks them; a refusal is a
// rejected *Error.
func Eval(ctx context.Context, src string, timeout time.Duration) (isolation.Result, error) {
	if err := limits.CheckWallClock(timeout); err != nil {
		return isolation.Result{Verdict: protocol.Rejected}, &isolation.Error{Verdict: protocol.Rejected, Err: err}
	}
	if err := protocol.CheckRequest(protocol.Request{Source: src}, true); err != nil {
		return isolation.Result{Verdict: protocol.Rejected}, &isolation.Error{Verdict: protocol.Rejected, Err: err}
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start, cpuBefore := time.Now(), processCPU()
	r := interp.Eval(ctx, src, interp.Options{})
	res := isolation.Result{
		Verdict: protocol.OK, Interpreter: "starlark", Result: r.Value, ResultType: r.Type, ResultRepr: r.Repr,
		Streams:    r.Streams,
		DurationMS: time.Since(start).Milliseconds(),
	}
	if cpuBefore >= 0 {
		// This process's CPU time while it evaluated, the evaluation's in
		// all but the runtime's own background work; no peak: the
		// process's peak is not the program's.
		ms := (processCPU() - cpuBefore).Milliseconds()
		res.Usage = &isolation.Usage{CPUMS: &ms}
	}
	if r.Err == nil {
		return res, nil
	}
	res.Verdict = protocol.ProgramError
	res.Error = r.Err.Wire()
	if r.Err.Kind != interp.Cancelled {
		return res, nil
	}
	res.Streams = protocol.Streams{}
	if parent.Err() != nil {
		res.Verdict = protocol.Interrupted
		res.Error = &protocol.Error{Type: string(protocol.Interrupted), Message: context.Cause(parent).Error()}
		return res, &isolation.Error{Verdict: protocol.Interrupted, Err: context.Cause(parent)}
	}
	res.Verdict = protocol.Timeout
	res.Error.Message = fmt.Sprintf("stopped at the timeout of %s", timeout)
	return res, &isolation.Error{Verdict: protocol.Timeout, Err: fmt.Errorf("stopped at the timeout of %s", timeout)}
}
