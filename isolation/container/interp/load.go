package interp

import (
	"errors"

	"go.starlark.net/starlark"
)

// loader runs the modules of an evaluation's files for load(), each once,
// whichever file loads it: a module is its globals, as in Bazel.
type loader struct {
	files       map[string]string
	predeclared starlark.StringDict
	done        map[string]*loaded
}

// loaded is one module's run: its globals, or why it failed; nil globals
// and no error while it runs, so a cycle of loads is seen.
type loaded struct {
	globals starlark.StringDict
	err     error
}

func newLoader(files map[string]string, predeclared starlark.StringDict) *loader {
	return &loader{files: files, predeclared: predeclared, done: map[string]*loaded{}}
}

// load is the thread's Load: module is a file's name as given.
func (l *loader) load(thread *starlark.Thread, module string) (starlark.StringDict, error) {
	if m, ok := l.done[module]; ok {
		if m.globals == nil && m.err == nil {
			return nil, errors.New("a cycle of loads")
		}
		return m.globals, m.err
	}
	src, ok := l.files[module]
	if !ok {
		return nil, errors.New("no such file (give it with --from-file)")
	}
	m := &loaded{}
	l.done[module] = m
	f, err := fileOptions.Parse(module, src, 0)
	if err == nil {
		var prog *starlark.Program
		prog, err = starlark.FileProgram(f, l.predeclared.Has)
		if err == nil {
			m.globals, err = prog.Init(thread, l.predeclared)
		}
	}
	if err != nil {
		// Starlark says "cannot load MODULE: " before it. A syntax error
		// keeps its module's position in its text, not as the program's
		// line and column, which are the load's.
		var ee *starlark.EvalError
		if !errors.As(err, &ee) {
			err = errors.New(err.Error())
		}
		m.globals, m.err = nil, err
		return nil, err
	}
	m.globals.Freeze()
	return m.globals, nil
}
