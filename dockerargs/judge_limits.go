package dockerargs

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// The judges of the argv's resource limits: CPUs, task and file limits,
// memory and swap.

func judgeCPUs(p *parsed) (Status, string) {
	v, ok := p.last("cpus")
	if !ok {
		return Missing, "--cpus not set"
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f <= 0 || f > limits.CPUs {
		return Violated, fmt.Sprintf("--cpus %s, want at most %d", v, limits.CPUs)
	}
	return Enforced, "--cpus " + v
}

// judgeRange requires a positive integer at most max.
func judgeRange(flag string, max int64) func(p *parsed) (Status, string) {
	return func(p *parsed) (Status, string) {
		v, ok := p.last(flag)
		if !ok {
			return Missing, fmt.Sprintf("--%s not set", flag)
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 || n > max {
			return Violated, fmt.Sprintf("--%s %s, want 1 to %d", flag, v, max)
		}
		return Enforced, fmt.Sprintf("--%s %s", flag, v)
	}
}

// judgeUlimit requires soft and hard limits of one resource within [min, max].
// Docker keeps the last --ulimit for a given name.
func judgeUlimit(name string, min, max int64) func(p *parsed) (Status, string) {
	return func(p *parsed) (Status, string) {
		val, found := "", false
		for _, v := range p.values["ulimit"] {
			if n, rest, ok := strings.Cut(v, "="); ok && n == name {
				val, found = rest, true
			}
		}
		if !found {
			return Missing, fmt.Sprintf("--ulimit %s=%s not set", name, limits.Pair(max, max))
		}
		soft, hard, ok := strings.Cut(val, ":")
		if !ok {
			hard = soft
		}
		s, err1 := strconv.ParseInt(soft, 10, 64)
		h, err2 := strconv.ParseInt(hard, 10, 64)
		if err1 != nil || err2 != nil || s < min || h < min || s > max || h > max || s > h {
			return Violated, fmt.Sprintf("--ulimit %s=%s, want at most %s", name, val, limits.Pair(max, max))
		}
		return Enforced, fmt.Sprintf("--ulimit %s=%s", name, val)
	}
}

// memoryLimit reads --memory with the grammar run shares with docker
// (limits.ParseBytes). A size that is not a whole number of bytes is
// unreadable here: docker would truncate it to a limit nobody wrote.
func memoryLimit(p *parsed) (limits.Bytes, string, error) {
	v, ok := p.last("memory")
	if !ok {
		return 0, "", nil
	}
	n, err := limits.ParseBytes(v)
	return n, v, err
}

func judgeMemory(p *parsed) (Status, string) {
	if v, ok := p.last("oom-kill-disable"); ok && v != "false" {
		return Violated, "--oom-kill-disable lets a container hang the host at its memory limit"
	}
	n, v, err := memoryLimit(p)
	switch {
	case v == "":
		return Missing, "--memory not set"
	case err != nil:
		return Violated, fmt.Sprintf("--memory %s is not a size docker reads exactly", v)
	case n < limits.MinMemory:
		return Violated, fmt.Sprintf("--memory %s, want at least %s", v, limits.MinMemory)
	case n > limits.MaxMemory:
		return Violated, fmt.Sprintf("--memory %s, want at most %s", v, limits.MaxMemory)
	}
	return Enforced, "--memory " + v
}

func judgeSwap(p *parsed) (Status, string) {
	mem, mv, merr := memoryLimit(p)
	v, ok := p.last("memory-swap")
	if !ok {
		return Missing, "--memory-swap not set (docker then allows as much swap again as memory)"
	}
	if mv == "" || merr != nil {
		return Violated, "--memory-swap " + v + " without a valid --memory"
	}
	n, err := limits.ParseBytes(v)
	if err != nil || n != mem {
		return Violated, fmt.Sprintf("--memory-swap %s, want equal to --memory %s (no swap)", v, mv)
	}
	return Enforced, "--memory-swap " + v + " (no swap)"
}
