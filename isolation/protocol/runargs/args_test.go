package runargs

import (
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
)

func TestArgsRoundTrip(t *testing.T) {
	for _, a := range []Args{
		{Timeout: 10 * time.Second},
		{Timeout: 5 * time.Second, Idle: time.Minute},
		{Timeout: 5 * time.Second, Idle: time.Minute, Exec: []string{"python3", "-"}},
		{Timeout: 1500 * time.Millisecond, Selfcheck: true},
		{Timeout: time.Minute, Exec: []string{"python3", "-"}},
		{Timeout: 5 * time.Second, Idle: time.Minute, CPUTime: 1500 * time.Millisecond, Exec: []string{"python3", "-"}},
		{Timeout: 5 * time.Second, Idle: time.Minute, Threads: 1, Preload: []string{"numpy", "matplotlib.pyplot"}, Exec: []string{"python3", "-"}},
		{Timeout: 20 * time.Second, TestTimeout: 2 * time.Second, Threads: 1, Source: "main.c",
			Compile: []string{"gcc-12", "-O2", "-o", "main", "main.c"}, Exec: []string{"./main"}},
		{Timeout: 20 * time.Second, Source: "main.py", Exec: []string{"python3", "main.py"}},
		{Timeout: 20 * time.Second, TestTimeout: time.Second, CPUTime: time.Second, TimeFactor: 2.5, Source: "Main.java",
			Compile: []string{"javac", "Main.java"}, Exec: []string{"java", "Main"}},
		// Everything after --exec is the command, runner flags included.
		{Timeout: time.Second, Exec: []string{"sh", "--timeout", "--selfcheck", "--exec"}},
	} {
		t.Run(strings.Join(a.Args(), " "), func(t *testing.T) {
			got, err := Parse(a.Args())
			assert.NilError(t, err)
			assert.DeepEqual(t, got, a)
		})
	}
}

func TestParseArgsDefaultsAndRejects(t *testing.T) {
	a, err := Parse(nil)
	assert.NilError(t, err)
	assert.Equal(t, a.Timeout, 10*time.Second)
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"--timeout"}, "--timeout needs a value"},
		{[]string{"--timeout", "soon"}, `timeout: must be a duration like 10s or 1m30s (got "soon")`},
		{[]string{"--timeout", "0s"}, `timeout: must be greater than 0 (got "0s")`},
		{[]string{"--timeout", "-1s"}, `timeout: must be greater than 0 (got "-1s")`},
		{[]string{"--timeout", "1h"}, `timeout: must be at most 10m0s (got "1h0m0s")`},
		{[]string{"--exec"}, "exec: the command must not be empty"},
		{[]string{"--exec", ""}, "exec: the command must not be empty"},
		{[]string{"--selfcheck", "--exec", "sh"}, "conflicting options: exec and selfcheck"},
		{[]string{"--verbose"}, `unknown argument "--verbose"`},
		{[]string{"--idle"}, "--idle needs a value"},
		{[]string{"--idle", "soon"}, `idle: must be a duration like 10s or 1m30s (got "soon")`},
		{[]string{"--idle", "-1s"}, `idle: must be from 10s to 10m0s (got "-1s")`},
		{[]string{"--idle", "5s"}, `idle: must be from 10s to 10m0s (got "5s")`},
		{[]string{"--cpu-time"}, "--cpu-time needs a value"},
		{[]string{"--cpu-time", "soon"}, `cpu-time: must be a duration like 10s or 1m30s (got "soon")`},
		{[]string{"--timeout", "2s", "--cpu-time", "5s"}, `cpu-time: must be at most the timeout (2s) (got "5s")`},
		{[]string{"--cpu-time", "1ms"}, `cpu-time: must be at least 10ms (got "1ms")`},
		{[]string{"--source", "main.c"}, "source: a language needs its run command (exec)"},
		{[]string{"--source", "a/b.c", "--exec", "./main"}, `source: file name "a/b.c": must be a plain name, without /`},
		{[]string{"--compile", `["gcc"]`, "--exec", "./main"}, "compile: a compile command needs the source's name (source)"},
		{[]string{"--source", "m.c", "--compile", `"gcc"`, "--exec", "./main"}, `compile: must be a JSON array of strings (got "\"gcc\"")`},
		{[]string{"--source", "m.c", "--compile", `["gcc",""]`, "--exec", "./main"}, "compile: the command must be words, none empty"},
		{[]string{"--source", "m.c", "--compile", `[]`, "--exec", "./main"}, "compile: the command must be words, none empty"},
		{[]string{"--test-timeout", "50ms", "--exec", "sh"}, `test-timeout: must be at least 100ms (got "50ms")`},
		{[]string{"--timeout", "2s", "--test-timeout", "3s", "--exec", "sh"}, `test-timeout: must be at most the timeout (2s) (got "3s")`},
		{[]string{"--time-factor"}, "--time-factor needs a value"},
		{[]string{"--time-factor", "two", "--exec", "sh"}, `time-factor: must be a number like 2 or 1.5 (got "two")`},
		{[]string{"--time-factor", "0x2", "--exec", "sh"}, `time-factor: must be a number like 2 or 1.5 (got "0x2")`},
		{[]string{"--time-factor", "0.5", "--exec", "sh"}, `time-factor: must be from 1 to 10 (got "0.5")`},
		{[]string{"--time-factor", "11", "--exec", "sh"}, `time-factor: must be from 1 to 10 (got "11")`},
		{[]string{"--time-factor", "NaN", "--exec", "sh"}, `time-factor: must be from 1 to 10 (got "NaN")`},
		{[]string{"--time-factor", "1.125", "--exec", "sh"}, `time-factor: must have at most two decimal places (got "1.125")`},
		{[]string{"--time-factor", "2"}, "time-factor: for an interpreter or a compiled language (exec) only"},
		{[]string{"--threads"}, "--threads needs a value"},
		{[]string{"--threads", "x", "--exec", "python3", "-"}, `threads: must be a whole number (got "x")`},
		{[]string{"--threads", "4", "--exec", "python3", "-"}, "threads: must be 1, with exec only (got 4)"},
		{[]string{"--threads", "1"}, "threads: must be 1, with exec only (got 1)"},
		{[]string{"--preload", "numpy", "--exec", "python3", "-"}, "preload: for a warm container only (idle)"},
		{[]string{"--idle", "30s", "--preload", "numpy;os", "--exec", "python3", "-"}, `preload: "numpy;os" is not a Python module name`},
		{[]string{"--idle", "30s", "--preload", "numpy", "--exec", "node", "-"}, `preload: needs a Python interpreter that reads its program from "-"`},
		{[]string{"--idle", "30s", "--preload", "numpy", "--exec", "python3", "-I"}, `preload: needs a Python interpreter that reads its program from "-"`},
		{[]string{"--idle", "30s", "--preload", ""}, `preload: "" is not a Python module name`},
	} {
		t.Run(strings.Join(tc.argv, " "), func(t *testing.T) {
			_, err := Parse(tc.argv)
			assert.Error(t, err, tc.want)
		})
	}
}
