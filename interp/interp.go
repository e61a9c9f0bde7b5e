// Package interp is the trusted in-process evaluator: Starlark, a small
// Python dialect, on go.starlark.net. The runner uses it inside the
// container; `eval` uses it directly on the host, with no isolation.
package interp

import (
	"context"
	"errors"
	"fmt"

	"go.starlark.net/lib/json"
	"go.starlark.net/lib/math"
	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// fileOptions enables the dialect the tool documents: while loops,
// recursion, sets, global reassignment and top-level control flow.
var fileOptions = &syntax.FileOptions{
	Set: true, While: true, TopLevelControl: true, GlobalReassign: true, Recursion: true,
}

// Options bound one evaluation.
type Options struct {
	// OutputLimit caps captured print() output in bytes; 0 means the policy's 64 KiB.
	OutputLimit int
}

// Eval runs src and returns the protocol response. Program errors (syntax,
// runtime, cancellation by ctx) are reported in the response, never as a
// Go error: every outcome is a response.
func Eval(ctx context.Context, src string, o Options) protocol.Response {
	limit := o.OutputLimit
	if limit <= 0 {
		limit = limits.MaxOutputBytes
	}
	out := NewCappedBuffer(limit)
	thread := &starlark.Thread{
		Name:  "main",
		Print: func(_ *starlark.Thread, msg string) { out.WriteString(msg + "\n") },
	}
	stop := context.AfterFunc(ctx, func() { thread.Cancel(context.Cause(ctx).Error()) })
	defer stop()

	v, err := evalFile(thread, src)
	resp := protocol.Response{V: protocol.Version, OK: err == nil, Result: []byte("null")}
	resp.Output, resp.OutputBytes, resp.OutputTruncated = out.Result()
	if err != nil {
		resp.Error = classify(ctx, err)
		return resp
	}
	if v != nil {
		resp.ResultType = v.Type()
		resp.Result, resp.ResultRepr = ToJSON(v)
	}
	return resp
}

// evalFile executes the file; if its last statement is an expression, it
// returns that expression's value (nil otherwise), like a REPL would print.
func evalFile(thread *starlark.Thread, src string) (starlark.Value, error) {
	f, err := fileOptions.Parse("main.star", src, 0)
	if err != nil {
		return nil, err
	}
	var last syntax.Expr
	if n := len(f.Stmts); n > 0 {
		if es, ok := f.Stmts[n-1].(*syntax.ExprStmt); ok {
			last = es.X
			f.Stmts = f.Stmts[:n-1]
		}
	}
	predeclared := starlark.StringDict{"json": json.Module, "math": math.Module}
	prog, err := starlark.FileProgram(f, predeclared.Has)
	if err != nil {
		return nil, err
	}
	globals, err := prog.Init(thread, predeclared)
	if err != nil || last == nil {
		return nil, err
	}
	env := starlark.StringDict{}
	for k, v := range predeclared {
		env[k] = v
	}
	for k, v := range globals {
		env[k] = v
	}
	return starlark.EvalExprOptions(fileOptions, thread, last, env)
}

// classify turns a Starlark error into a typed protocol error.
func classify(ctx context.Context, err error) *protocol.Error {
	var (
		serr  syntax.Error
		rerrs resolve.ErrorList
		eerr  *starlark.EvalError
	)
	switch {
	case ctx.Err() != nil:
		return &protocol.Error{Type: protocol.ErrTimeout, Message: "stopped: " + context.Cause(ctx).Error()}
	case errors.As(err, &serr):
		return &protocol.Error{Type: protocol.ErrSyntax, Message: serr.Msg, Line: int(serr.Pos.Line), Col: int(serr.Pos.Col)}
	case errors.As(err, &rerrs) && len(rerrs) > 0:
		e := rerrs[0]
		return &protocol.Error{Type: protocol.ErrSyntax, Message: e.Msg, Line: int(e.Pos.Line), Col: int(e.Pos.Col)}
	case errors.As(err, &eerr):
		pe := &protocol.Error{Type: protocol.ErrRuntime, Message: eerr.Msg}
		// The innermost frame with a position: builtins like fail have none.
		for i := len(eerr.CallStack) - 1; i >= 0; i-- {
			if pos := eerr.CallStack[i].Pos; pos.Line > 0 {
				pe.Line, pe.Col = int(pos.Line), int(pos.Col)
				break
			}
		}
		return pe
	}
	return &protocol.Error{Type: protocol.ErrRuntime, Message: fmt.Sprint(err)}
}
