package protocol

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

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
	if a.Threads != 0 && (a.Threads != limits.Threads || a.Exec == nil) {
		return fmt.Errorf("threads: must be %d, with exec only (got %d)", limits.Threads, a.Threads)
	}
	return limits.CheckCPUTime(a.CPUTime, a.Timeout)
}

// Args renders a as the runner's argv: --timeout D, --idle D and
// --cpu-time D when set, then --selfcheck or --exec CMD ARGS... (last,
// since everything after it is the command).
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
	switch {
	case a.Selfcheck:
		out = append(out, argSelfcheck)
	case a.Exec != nil:
		out = append(append(out, argExec), a.Exec...)
	}
	return out
}

// ParseArgs reads the runner's argv; it is the inverse of Args. A missing
// --timeout means the policy default.
func ParseArgs(argv []string) (Args, error) {
	a := Args{Timeout: limits.DefaultTimeout}
	for i := 0; i < len(argv); i++ {
		switch argv[i] {
		case argTimeout, argIdle, argCPUTime:
			d, err := durationAfter(argv, i)
			if err != nil {
				return a, err
			}
			switch argv[i] {
			case argTimeout:
				a.Timeout = d
			case argIdle:
				a.Idle = d
			default:
				a.CPUTime = d
			}
			i++
		case argThreads:
			if i+1 >= len(argv) {
				return a, fmt.Errorf("%s needs a value", argv[i])
			}
			n, err := strconv.Atoi(argv[i+1])
			if err != nil {
				return a, fmt.Errorf("threads: must be a whole number (got %q)", argv[i+1])
			}
			a.Threads = n
			i++
		case argPreload:
			if i+1 >= len(argv) {
				return a, fmt.Errorf("%s needs a value", argv[i])
			}
			a.Preload = strings.Split(argv[i+1], ",")
			i++
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

// durationAfter reads the duration after the flag argv[i] (--timeout,
// --idle or --cpu-time), the one way the runner's durations are parsed;
// its range is Validate's to check.
func durationAfter(argv []string, i int) (time.Duration, error) {
	name := strings.TrimPrefix(argv[i], "--")
	if i+1 >= len(argv) {
		return 0, fmt.Errorf("%s needs a value", argv[i])
	}
	d, err := time.ParseDuration(argv[i+1])
	if err != nil {
		return 0, fmt.Errorf("%s: must be a duration like 10s or 1m30s (got %q)", name, argv[i+1])
	}
	return d, nil
}
