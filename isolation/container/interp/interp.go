// Package interp is the trusted in-process evaluator: Starlark, a small
// Python dialect, on go.starlark.net. The runner uses it inside the
// container; `eval` uses it directly on the host, with no isolation.
package interp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	starjson "go.starlark.net/lib/json"
	"go.starlark.net/lib/math"
	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/capture"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// fileOptions enables the dialect the tool documents: while loops,
// recursion, sets, global reassignment and top-level control flow.
var fileOptions = &syntax.FileOptions{
	Set: true, While: true, TopLevelControl: true, GlobalReassign: true, Recursion: true,
	// A loaded name is a global, so the last expression sees it too.
	LoadBindsGlobally: true,
}

// Options bound one evaluation and give it its data.
type Options struct {
	// OutputLimit caps captured print() output in bytes; 0 means the policy's 64 KiB.
	OutputLimit int
	// Stdin is the program's input: the predeclared string stdin.
	Stdin string
	// Files are the modules load() finds by name: load("lib.star", "f")
	// runs Files["lib.star"] once, with the same dialect and predeclared
	// names, and binds its global f. Starlark has no file I/O, by design
	// (a program's effects are its result and its output), so a file is
	// a module, not data to open; data comes in as stdin.
	Files map[string]string
}

// ErrorKind says why a program failed.
type ErrorKind string

// The kinds of program failure.
const (
	Syntax    ErrorKind = "syntax"    // the program does not parse or resolve
	Runtime   ErrorKind = "runtime"   // the program raised while running
	Cancelled ErrorKind = "cancelled" // ctx ended the program (a deadline, say)
)

// Error is a program failure, with its position where one exists.
type Error struct {
	Kind      ErrorKind
	Msg       string
	Line, Col int
}

// Result is the outcome of one evaluation.
type Result struct {
	// Value is the last expression's value as JSON, or, where no JSON value
	// exists, its repr as a JSON string (then Repr is true). It is nil when
	// the program has no final expression or failed.
	Value json.RawMessage
	// Type is the Starlark type name of the value.
	Type string
	Repr bool
	// Streams hold the captured print() output (a Starlark program has no
	// standard error), within limits.MaxOutputBytes.
	protocol.Streams
	// Err is the program's failure; nil when it succeeded.
	Err *Error
}

// Eval runs src. Program errors (syntax, runtime, cancellation by ctx) are
// reported in the result, never as a Go error: every outcome is a result.
func Eval(ctx context.Context, src string, o Options) Result {
	limit := o.OutputLimit
	if limit <= 0 {
		limit = limits.MaxOutputBytes
	}
	out := capture.NewStream(limit)
	predeclared := starlark.StringDict{"json": starjson.Module, "math": math.Module, "stdin": starlark.String(o.Stdin)}
	thread := &starlark.Thread{
		Name:  "main",
		Print: func(_ *starlark.Thread, msg string) { _, _ = out.WriteString(msg + "\n") },
		Load:  newLoader(o.Files, predeclared).load,
	}
	stop := context.AfterFunc(ctx, func() { thread.Cancel(context.Cause(ctx).Error()) })
	defer stop()

	v, err := evalFile(thread, src, predeclared)
	kept, _ := capture.Keep(limit, out, nil)
	res := Result{Streams: protocol.StreamsOf(kept, capture.Kept{})}
	if err != nil {
		res.Err = classify(ctx, err)
		return res
	}
	if v != nil {
		res.Type = v.Type()
		res.Value, res.Repr = ToJSON(v)
	}
	return res
}

// evalFile executes the file; if its last statement is an expression, it
// returns that expression's value (nil otherwise), like a REPL would print.
func evalFile(thread *starlark.Thread, src string, predeclared starlark.StringDict) (starlark.Value, error) {
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

// classify turns a Starlark error into a typed one.
func classify(ctx context.Context, err error) *Error {
	var (
		serr  syntax.Error
		rerrs resolve.ErrorList
		eerr  *starlark.EvalError
	)
	switch {
	case ctx.Err() != nil:
		return &Error{Kind: Cancelled, Msg: "stopped: " + context.Cause(ctx).Error()}
	case errors.As(err, &serr):
		return &Error{Kind: Syntax, Msg: serr.Msg, Line: int(serr.Pos.Line), Col: int(serr.Pos.Col)}
	case errors.As(err, &rerrs) && len(rerrs) > 0:
		e := rerrs[0]
		return &Error{Kind: Syntax, Msg: e.Msg, Line: int(e.Pos.Line), Col: int(e.Pos.Col)}
	case errors.As(err, &eerr):
		pe := &Error{Kind: Runtime, Msg: eerr.Msg}
		// The innermost frame with a position: builtins like fail have none.
		for i := len(eerr.CallStack) - 1; i >= 0; i-- {
			if pos := eerr.CallStack[i].Pos; pos.Line > 0 {
				pe.Line, pe.Col = int(pos.Line), int(pos.Col)
				break
			}
		}
		return pe
	}
	return &Error{Kind: Runtime, Msg: fmt.Sprint(err)}
}
