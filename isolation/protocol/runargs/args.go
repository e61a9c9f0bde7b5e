// Package runargs is the runner's command line, the part of the protocol
// the host renders after the image in the docker argv and the runner
// parses: its deadline, its mode (Starlark, a command, a selfcheck), its
// language and its limits.
package runargs

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// The runner's flags, spelled once for both sides.
const (
	argIdle      = "--idle"
	argTimeout   = "--timeout"
	argExec      = "--exec"
	argSelfcheck = "--selfcheck"
	argCPUTime   = "--cpu-time"
	argThreads   = "--threads"
	argPreload   = "--preload"
	argSource    = "--source"
	argCompile   = "--compile"
	argTest      = "--test-timeout"
	// argTimeFactor is a language's time factor (TimeFactor).
	argTimeFactor = "--time-factor"
)

// Args is the runner's command line: what the host renders after the image
// and the runner parses. Exactly one mode: Starlark (the default), Exec or
// Selfcheck.
type Args struct {
	// Timeout is the runner's own deadline, counted from the request's
	// arrival, so the work is bounded even if the host supervisor dies.
	Timeout time.Duration
	// Idle bounds the wait for the request; a container started ahead of
	// its request (a warm pool) ends on its own when none comes. Zero
	// means Timeout.
	Idle time.Duration
	// Exec, when set, is an interpreter baked into the image that runs
	// the source instead of the Starlark evaluator. The runner writes the
	// source to a file in the program's working directory (/tmp/work/main)
	// and puts its path in place of the command's first argument that is
	// exactly "-" ("python3 -", "node -", "ruby -"), or, without one, after
	// the last ("sh", "python3 -I"): an interpreter reads it there, and its
	// stdin is the request's.
	Exec []string
	// Selfcheck makes the runner report what the container sees instead of
	// running a program.
	Selfcheck bool
	// Threads is what the runner sets limits.ThreadVars to for the
	// interpreter: the host sets limits.Threads in exec mode (the audit
	// holds it to that); zero sets none.
	Threads int
	// Preload, in a warm container (Idle set) of a Python interpreter, are
	// the modules the runner imports in a fresh interpreter once the host
	// has judged the hello (it writes one newline to say so), so the
	// program the request brings runs in it without paying the imports
	// (CheckPreload).
	Preload []string
	// CPUTime, when set, is the program's CPU-time limit, counted on the
	// container's cgroup from the request: the runner stops the program
	// when it is reached. Zero means none.
	CPUTime time.Duration
	// Source, set for a language an image declares (its label), is the
	// source's file name in the working directory ("main.c"): then Exec
	// is the program's run command as it stands, no source path put in
	// it, and a first word "./NAME" is the file NAME the compile step
	// left in the working directory, which the runner starts from a
	// sealed memfd (/tmp is noexec).
	Source string
	// Compile is the language's compile command, run once in the working
	// directory before the program (Source set); nil: none.
	Compile []string
	// TestTimeout is each test's wall-clock limit in a judge's request;
	// zero shares the time left fairly (limits.Config.TestTimeout).
	TestTimeout time.Duration
	// TimeFactor, set for an image that declares one (its time-factor
	// label: Java 2, say), multiplies TestTimeout and CPUTime for each
	// test of a judge's request, so those name the C limit and a slower
	// language is given its share; the request's Timeout still bounds
	// the whole. Zero is none, a factor of 1.
	TimeFactor float64
}

// Validate reports what makes a an invalid command line.
func (a Args) Validate() error {
	if err := limits.CheckWallClock(a.Timeout); err != nil {
		return err
	}
	if a.Idle != 0 { // zero: no idle cap, a container run at once
		if err := limits.CheckIdle(a.Idle); err != nil {
			return err
		}
	}
	if err := limits.CheckTestTimeout(a.TestTimeout, a.Timeout); err != nil {
		return err
	}
	if err := limits.CheckCPUTime(a.CPUTime, a.Timeout); err != nil {
		return err
	}
	if err := limits.CheckTimeFactor(a.TimeFactor); err != nil {
		return err
	}
	return a.CheckProgram()
}

// CheckProgram checks what a carries of the program beside its bounds:
// the command, the modules to preload, the language, the threads. The
// host, whose bounds limits.Config.Resolve and the pool checked already,
// checks only this; the runner checks all of Validate.
func (a Args) CheckProgram() error {
	if a.Exec != nil && (len(a.Exec) == 0 || a.Exec[0] == "") {
		return errors.New("exec: the command must not be empty")
	}
	if a.Exec != nil && a.Selfcheck {
		return errors.New("conflicting options: exec and selfcheck")
	}
	if a.Exec != nil {
		if err := checkInline(a.Exec); err != nil {
			return err
		}
	}
	if a.Preload != nil {
		if a.Idle == 0 {
			return errors.New("preload: for a warm container only (idle)")
		}
		if err := CheckPreload(a.Preload, a.Exec); err != nil {
			return err
		}
	}
	if err := a.validateLanguage(); err != nil {
		return err
	}
	if a.TimeFactor != 0 && a.Exec == nil {
		return errors.New("time-factor: for an interpreter or a compiled language (exec) only")
	}
	if a.Threads != 0 && (a.Threads != limits.Threads || a.Exec == nil) {
		return fmt.Errorf("threads: must be %d, with exec only (got %d)", limits.Threads, a.Threads)
	}
	return nil
}

// validateLanguage checks a declared language: a plain source name, with
// a run command; a compile command of non-empty words, with a source.
func (a Args) validateLanguage() error {
	if a.Source != "" {
		if a.Exec == nil {
			return errors.New("source: a language needs its run command (exec)")
		}
		if err := protocol.CheckName(a.Source); err != nil {
			return fmt.Errorf("source: %w", err)
		}
	}
	if a.Compile == nil {
		return nil
	}
	if a.Source == "" {
		return errors.New("compile: a compile command needs the source's name (source)")
	}
	if len(a.Compile) == 0 || slices.Contains(a.Compile, "") {
		return errors.New("compile: the command must be words, none empty")
	}
	return nil
}

// Args renders a as the runner's argv: --timeout D, --idle D,
// --cpu-time D, --test-timeout D and --time-factor F when set, then --selfcheck or --exec CMD ARGS... (last,
// since everything after it is the command). A compile command is one
// argument, its JSON array, which an auditor reads as it is.
func (a Args) Args() []string {
	out := []string{argTimeout, a.Timeout.String()}
	if a.Idle > 0 {
		out = append(out, argIdle, a.Idle.String())
	}
	if a.CPUTime > 0 {
		out = append(out, argCPUTime, a.CPUTime.String())
	}
	if a.Threads > 0 {
		out = append(out, argThreads, strconv.Itoa(a.Threads))
	}
	if a.Preload != nil {
		out = append(out, argPreload, strings.Join(a.Preload, ","))
	}
	if a.TestTimeout > 0 {
		out = append(out, argTest, a.TestTimeout.String())
	}
	if a.TimeFactor != 0 {
		out = append(out, argTimeFactor, strconv.FormatFloat(a.TimeFactor, 'f', -1, 64))
	}
	if a.Source != "" {
		out = append(out, argSource, a.Source)
	}
	if a.Compile != nil {
		b, _ := json.Marshal(a.Compile)
		out = append(out, argCompile, string(b))
	}
	switch {
	case a.Selfcheck:
		out = append(out, argSelfcheck)
	case a.Exec != nil:
		out = append(append(out, argExec), a.Exec...)
	}
	return out
}

// Parse reads the runner's argv; it is the inverse of Args. A missing
// --timeout means the policy default.
func Parse(argv []string) (Args, error) {
	a := Args{Timeout: limits.DefaultTimeout}
	for i := 0; i < len(argv); i++ {
		if read, ok := valued[argv[i]]; ok {
			if i+1 >= len(argv) {
				return a, fmt.Errorf("%s needs a value", argv[i])
			}
			if err := read(&a, argv[i+1]); err != nil {
				return a, err
			}
			i++
			continue
		}
		switch argv[i] {
		case argSelfcheck:
			a.Selfcheck = true
		case argExec:
			a.Exec = argv[i+1:]
			i = len(argv)
		default:
			return a, fmt.Errorf("unknown argument %q", argv[i])
		}
	}
	return a, a.Validate()
}

// valued are the runner's flags that take a value, and how each value is
// read into Args; its range is Validate's to check.
var valued = map[string]func(a *Args, v string) error{
	argTimeout: func(a *Args, v string) (err error) { a.Timeout, err = duration(argTimeout, v); return err },
	argIdle:    func(a *Args, v string) (err error) { a.Idle, err = duration(argIdle, v); return err },
	argCPUTime: func(a *Args, v string) (err error) { a.CPUTime, err = duration(argCPUTime, v); return err },
	argTest:    func(a *Args, v string) (err error) { a.TestTimeout, err = duration(argTest, v); return err },
	argTimeFactor: func(a *Args, v string) (err error) {
		if a.TimeFactor, err = strconv.ParseFloat(v, 64); err != nil || strings.ContainsAny(v, "xX_") {
			return fmt.Errorf("time-factor: must be a number like 2 or 1.5 (got %q)", v)
		}
		return nil
	},
	argThreads: func(a *Args, v string) (err error) {
		if a.Threads, err = strconv.Atoi(v); err != nil {
			return fmt.Errorf("threads: must be a whole number (got %q)", v)
		}
		return nil
	},
	argPreload: func(a *Args, v string) error { a.Preload = strings.Split(v, ","); return nil },
	argSource:  func(a *Args, v string) error { a.Source = v; return nil },
	argCompile: func(a *Args, v string) error {
		if err := json.Unmarshal([]byte(v), &a.Compile); err != nil || a.Compile == nil {
			return fmt.Errorf("compile: must be a JSON array of strings (got %q)", v)
		}
		return nil
	},
}

// duration reads the duration after the flag (--timeout, --idle,
// --cpu-time or --test-timeout), the one way the runner's durations are
// parsed.
func duration(flag, v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%s: must be a duration like 10s or 1m30s (got %q)", strings.TrimPrefix(flag, "--"), v)
	}
	return d, nil
}
