package dockerargs

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// The judges of the runner's own arguments, after the image: its thread
// pools and its time limits.

// runnerCPUTime is the runner's argument for the CPU-time limit, which
// isolation/protocol renders after the image (an audit test of a rendered
// argv holds the two spellings together). The runner's arguments end at
// --exec: what follows is the interpreter's command.
const (
	runnerCPUTime     = "--cpu-time"
	runnerTestTimeout = "--test-timeout"
	runnerTimeFactor  = "--time-factor"
	runnerTimeout     = "--timeout"
	runnerThreads     = "--threads"
	runnerExec        = "--exec"
)

// judgeThreads reports the thread pools the runner holds an interpreter
// to: with --exec, --threads must be the policy's CPUs (else a numeric
// library starts a thread per host CPU); Starlark runs in the runner and
// starts none.
func judgeThreads(p *parsed) (Status, string) {
	threads, exec := "", false
	for i := 0; i < len(p.args) && !exec; i++ {
		switch {
		case p.args[i] == runnerExec:
			exec = true
		case p.args[i] == runnerThreads && i+1 < len(p.args):
			threads = p.args[i+1]
		}
	}
	want := strconv.Itoa(limits.Threads)
	switch {
	case !exec && threads == "":
		return Enforced, "none: no interpreter (Starlark runs in the runner)"
	case threads == want:
		return Enforced, fmt.Sprintf("%s %s (runner argument)", runnerThreads, threads)
	case threads == "":
		return Missing, fmt.Sprintf("no %s: an interpreter's numeric libraries would size their pools by the host's CPUs", runnerThreads)
	}
	return Violated, fmt.Sprintf("%s %s, want %s", runnerThreads, threads, want)
}

// judgeCPUTime reports the time limits the runner is given, which no
// docker flag can set: the CPU-time limit, none (the wall-clock limit
// alone) or a duration within the policy's range; and a judge's test
// limit, none (a fair share of the timeout) or within its range. A
// malformed one is a runner that would refuse to start, or a limit it
// could not keep.
func judgeCPUTime(p *parsed) (Status, string) {
	var cpu, test, timeout, factor string
	for i := 0; i+1 < len(p.args) && p.args[i] != runnerExec; i++ {
		switch p.args[i] {
		case runnerCPUTime:
			cpu = p.args[i+1]
		case runnerTestTimeout:
			test = p.args[i+1]
		case runnerTimeout:
			timeout = p.args[i+1]
		case runnerTimeFactor:
			factor = p.args[i+1]
		}
	}
	t, err := limits.ParseTimeout(timeout)
	if timeout == "" {
		t, err = limits.DefaultTimeout, nil
	}
	var said []string
	for _, l := range []struct {
		flag, value string
		check       func(d, timeout time.Duration) error
	}{{runnerCPUTime, cpu, limits.CheckCPUTime}, {runnerTestTimeout, test, limits.CheckTestTimeout}} {
		if l.value == "" {
			continue
		}
		d, derr := time.ParseDuration(l.value)
		if derr != nil {
			return Violated, fmt.Sprintf("%s %q is not a duration", l.flag, l.value)
		}
		if err == nil {
			err = l.check(d, t)
		}
		if err != nil {
			return Violated, fmt.Sprintf("%s %s: %v", l.flag, l.value, err)
		}
		said = append(said, l.flag+" "+l.value)
	}
	if factor != "" {
		msg, ok := judgeTimeFactor(factor)
		if !ok {
			return Violated, msg
		}
		said = append(said, msg)
	}
	if said == nil {
		return Enforced, "none: the wall-clock timeout alone"
	}
	return Enforced, strings.Join(said, ", ") + " (runner argument)"
}

// judgeTimeFactor reads a language's time factor: each test's limits are
// --test-timeout and --cpu-time times it.
func judgeTimeFactor(v string) (msg string, ok bool) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || strings.ContainsAny(v, "xX_") {
		return fmt.Sprintf("%s %q is not a number", runnerTimeFactor, v), false
	}
	if err := limits.CheckTimeFactor(f); err != nil {
		return fmt.Sprintf("%s %s: %v", runnerTimeFactor, v, err), false
	}
	return fmt.Sprintf("%s %s (each test's limits times %s)", runnerTimeFactor, v, v), true
}
