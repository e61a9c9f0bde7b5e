package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/runargs"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// The runner's one loop over tests (runTests), run in-process in each
// mode a request's role gives it (modeOf): no container and no engine,
// the test binary as the exec trampoline (TestMain), a cgroup with
// nothing in it (no limit read or kept but the wall clock's), and the
// host played over pipes.

// inProcess is a guard over an empty cgroup and a step's spec running
// `sh -c script NAME` in a working directory of its own.
func inProcess(t *testing.T, script string) (*guard, startSpec) {
	cg := newCgroup(t.TempDir())
	return &guard{cg: cg, cpu: &meter{cg: cg}}, startSpec{argv: []string{"sh", "-c", script, "sh"}, dir: t.TempDir()}
}

// withDeadline is a context with a deadline far ahead: the runner's
// always has one, of which each test's share is taken.
func withDeadline(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	t.Cleanup(cancel)
	return ctx
}

// size is n, for a test's announced sizes.
func size(n int) *int64 {
	v := int64(n)
	return &v
}

// TestCheckedModeSendsEachPassingTestsOutput: a program whose output goes
// to a checker compares nothing; each test that exited 0 within its
// limits sends its whole stdout to the host as an output frame once it is
// gone, its result saying how much; a test that failed sends none.
func TestCheckedModeSendsEachPassingTestsOutput(t *testing.T) {
	t.Parallel()
	g, spec := inProcess(t, `read -r x; [ "$x" = fail ] && exit 4; printf '%s' "$x"`)
	var frames bytes.Buffer
	tests := []protocol.Test{
		{Name: "a", Stdin: []byte("abc\n"), Expect: []byte("not abc")},
		{Name: "b", Stdin: []byte("fail\n")},
		{Name: "c", Stdin: []byte("\n")},
	}
	m := modeOf(protocol.RoleChecked, "", nil, &responder{out: &frames})
	res, failed := runTests(withDeadline(t), runargs.Args{Timeout: time.Minute}, tests, g, spec, limits.MaxOutputBytes, m)
	assert.Assert(t, failed == nil, "%+v", failed)
	assert.DeepEqual(t, verdictsOf(res), []string{"ok", "program_error", "ok"})
	assert.Check(t, is.Equal(frames.String(), "=out 0 3\nabc=out 2 0\n"))
	assert.Check(t, res[0].CheckedBytes != nil && *res[0].CheckedBytes == 3 && res[0].Match == nil, "not compared: %+v", res[0])
	assert.Check(t, res[1].CheckedBytes == nil && res[1].Exit.Code == 4)
	assert.Check(t, res[2].CheckedBytes != nil && *res[2].CheckedBytes == 0)
}

// verdictsOf lists each result's verdict.
func verdictsOf(res []protocol.TestResult) []string {
	var out []string
	for _, r := range res {
		out = append(out, r.Verdict)
	}
	return out
}

// checkScript is a checker: it names its three files on stderr, and
// accepts an output equal to the answer (testlib's exit 0), else says
// why on stdout (exit 1).
const checkScript = `printf '%s\n' "$1" "$2" "$3" >&2; read -r in < "$1"; read -r got < "$2"; read -r want < "$3"
[ "$got" = "$want" ] || { echo "$in: $got is not $want"; exit 1; }`

// checkData is a check's data for tests, each [input, answer, output],
// in the wire's order (input, answer, output), and the tests' sizes.
func checkData(cases ...[4]string) ([]protocol.Test, *bytes.Reader) {
	var tests []protocol.Test
	var data strings.Builder
	for _, c := range cases {
		tests = append(tests, protocol.Test{Name: c[0], StdinBytes: int64(len(c[1])), ExpectBytes: size(len(c[2])), OutputBytes: size(len(c[3]))})
		data.WriteString(c[1] + c[2] + c[3])
	}
	return tests, bytes.NewReader([]byte(data.String()))
}

// TestCheckModeRunsTheCheckerOnEachTestsFiles: a check runs the checker
// once per test as `checker INPUT OUTPUT ANSWER`, three files written
// from the test's data as it is read (input, answer, output on the
// wire), removed once the test is done; its exit is the test's result,
// under the checker's own limits, never a language's time factor.
func TestCheckModeRunsTheCheckerOnEachTestsFiles(t *testing.T) {
	t.Parallel()
	g, spec := inProcess(t, checkScript)
	tests, data := checkData([4]string{"right", "3 4\n", "7\n", "7\n"}, [4]string{"wrong", "1 1\n", "2\n", "3\n"})
	cfg := runargs.Args{Timeout: time.Minute, TestTimeout: 5 * time.Second, CPUTime: 2 * time.Second, TimeFactor: 3}
	m := modeOf(protocol.RoleCheck, "", data, &responder{out: io.Discard})
	res, failed := runTests(withDeadline(t), cfg, tests, g, spec, limits.MaxOutputBytes, m)
	assert.Assert(t, failed == nil, "%+v", failed)
	assert.Check(t, is.Equal(data.Len(), 0), "every test's data read")
	assert.DeepEqual(t, verdictsOf(res), []string{"ok", "program_error"})
	assert.Check(t, is.Equal(res[1].Exit.Code, 1))
	assert.Check(t, is.Equal(res[1].Output, "1 1: 3 is not 2\n"))
	for _, r := range res {
		assert.Check(t, r.TimeLimitMS == 5000 && r.CPUTimeLimitMS == 2000, "the checker's own limits: %+v", r)
		paths := strings.Fields(r.Stderr)
		if assert.Check(t, is.Len(paths, 3), r.Stderr) {
			for k, name := range []string{"input", "output", "answer"} {
				assert.Check(t, is.Equal(filepath.Base(paths[k]), name))
			}
			_, err := os.Stat(filepath.Dir(paths[0]))
			assert.Check(t, os.IsNotExist(err), "the test's files are removed: %v", err)
		}
	}
}

// TestCheckModeEnds: a check's data that ends short is the request's
// failure; a check whose deadline came first runs no test, yet reads each
// test's data, and names the checker's deadline.
func TestCheckModeEnds(t *testing.T) {
	t.Parallel()
	g, spec := inProcess(t, checkScript)
	cfg := runargs.Args{Timeout: time.Minute, TestTimeout: 5 * time.Second}
	tests, _ := checkData([4]string{"a", "1\n", "1\n", "1\n"})
	m := modeOf(protocol.RoleCheck, "", strings.NewReader("1\n1\n"), &responder{out: io.Discard})
	_, failed := runTests(withDeadline(t), cfg, tests, g, spec, limits.MaxOutputBytes, m)
	assert.Assert(t, failed != nil)
	assert.Check(t, is.Equal(failed.Error.Type, protocol.ErrRequest))
	assert.Check(t, is.Contains(failed.Error.Message, "0 of 2 bytes"))

	tests, data := checkData([4]string{"a", "1\n", "1\n", "1\n"}, [4]string{"b", "2\n", "2\n", "2\n"})
	ctx, cancel := context.WithDeadline(context.Background(), time.Now())
	defer cancel()
	m = modeOf(protocol.RoleCheck, "", data, &responder{out: io.Discard})
	res, failed := runTests(ctx, cfg, tests, g, spec, limits.MaxOutputBytes, m)
	assert.Assert(t, failed == nil, "%+v", failed)
	assert.Check(t, is.Equal(data.Len(), 0), "every test's data read")
	for _, r := range res {
		assert.Check(t, r.NotRun && r.Verdict == protocol.TestTimeout && r.TimeLimitMS == 0, "%+v", r)
		assert.Check(t, is.Equal(r.Error.Message, "not run: the checker's deadline of 1m0s came first"))
	}
}

// liveHost plays the host's side of the live frames: it logs each frame
// the runner writes (=io with its bytes), and at each =ready I calls
// onReady (when set) and writes the runner script[I], the frames of test
// I (none: it never answers); at a =ready of a test the script lacks, it
// ends its stream, as when the other side is gone.
type liveHost struct {
	r      *responder
	toLoop io.Reader // what the loop reads: the host's frames
	mu     sync.Mutex
	seen   []string
	done   chan struct{}
}

func newLiveHost(t *testing.T, script map[int]string, onReady func(i int)) *liveHost {
	fromRunner, runnerOut := io.Pipe()
	toRunner, hostOut := io.Pipe()
	h := &liveHost{r: &responder{out: runnerOut}, toLoop: toRunner, done: make(chan struct{})}
	go func() {
		defer close(h.done)
		defer hostOut.Close()
		br := bufio.NewReader(fromRunner)
		for {
			line, err := br.ReadBytes('\n')
			if err != nil {
				return
			}
			kind, i, n, err := protocol.ParseLiveHeader(bytes.TrimSuffix(line, []byte("\n")), protocol.LiveReady, protocol.LiveIO, protocol.LiveShut, protocol.LiveDone)
			if err != nil {
				t.Errorf("the runner wrote %q: %v", line, err)
				return
			}
			entry := fmt.Sprintf("%s %d", kind, i)
			if kind == protocol.LiveIO {
				b := make([]byte, n)
				_, _ = io.ReadFull(br, b)
				entry += " " + strconv.Quote(string(b))
			}
			h.mu.Lock()
			h.seen = append(h.seen, entry)
			h.mu.Unlock()
			if kind == protocol.LiveReady && onReady != nil {
				onReady(i)
			}
			if kind == protocol.LiveReady {
				frames, ok := script[i]
				if !ok {
					hostOut.Close()
					continue
				}
				_, _ = io.WriteString(hostOut, frames)
			}
		}
	}()
	t.Cleanup(func() {
		runnerOut.Close()
		<-h.done
	})
	return h
}

// frames are the runner's frames as the host read them, once the runner
// wrote its last.
func (h *liveHost) frames() []string {
	h.r.mu.Lock()
	h.r.out.(*io.PipeWriter).Close()
	h.r.mu.Unlock()
	<-h.done
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.seen
}

// in is the frame of kind for test i, with b its bytes.
func in(kind string, i int, b string) string {
	return string(protocol.LiveHeader(kind, i, len(b))) + b
}

// TestInteractiveModeRelaysEachTestLive: an interactive program's test
// waits for its =go after its =ready; its stdin is the host's =in frames
// up to =eof, its stdout the host's =io frames up to =shut, and =done
// follows its end. An =end stops it, and its result says so (stopped,
// not a limit of its own). Once the host's stream ends, the test waiting
// and every test after it did not run, the interactor's end their
// cause. Its limits are the program's, times its language's factor.
func TestInteractiveModeRelaysEachTestLive(t *testing.T) {
	t.Parallel()
	g, spec := inProcess(t, `read -r x || exec sleep 60; echo $((x * 2))`)
	h := newLiveHost(t, map[int]string{
		0: in(protocol.LiveGo, 0, "") + in(protocol.LiveIn, 0, "21\n") + in(protocol.LiveEOF, 0, ""),
		1: in(protocol.LiveGo, 1, "") + in(protocol.LiveEnd, 1, ""),
	}, nil)
	tests := []protocol.Test{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}}
	cfg := runargs.Args{Timeout: time.Minute, TestTimeout: 10 * time.Second, TimeFactor: 2}
	res, failed := runTests(withDeadline(t), cfg, tests, g, spec, limits.MaxOutputBytes, modeOf(protocol.RoleInteractive, "", h.toLoop, h.r))
	assert.Assert(t, failed == nil, "%+v", failed)
	assert.DeepEqual(t, h.frames(), []string{"ready 0", `io 0 "42\n"`, "shut 0", "done 0", "ready 1", "shut 1", "done 1", "ready 2"})
	assert.DeepEqual(t, verdictsOf(res), []string{"ok", "timeout", "program_error", "program_error"})
	assert.Check(t, is.Equal(res[0].Output, "42\n"))
	assert.Check(t, res[0].TimeLimitMS == 20000 && !res[0].Stopped, "%+v", res[0])
	assert.Check(t, res[1].Stopped && !res[1].NotRun, "%+v", res[1])
	assert.Check(t, is.Equal(res[1].Error.Message, "stopped at the interactor's end"))
	for _, r := range res[2:] {
		assert.Check(t, r.NotRun && r.TimeLimitMS == 0 && r.Error.Type == protocol.ErrInternal, "%+v", r)
		assert.Check(t, is.Equal(r.Error.Message, "not run: the interactor ended before it"))
	}
}

// interactScript is an interactor: it names its two files on stderr,
// writes the input's first line to the program, and accepts the
// program's answer when it is the answer file's.
const interactScript = `printf '%s\n' "$1" "$2" >&2; read -r n < "$1"; echo "$n"; read -r got; read -r want < "$2"
[ "$got" = "$want" ] || { echo "wanted $want" >&2; exit 1; }`

// TestInteractModeGivesTheInteractorItsFiles: an interactor runs once
// per test as `interactor INPUT ANSWER`, two files of the test's data
// removed once the test is done, its stdin and stdout the host's live
// frames; an =end only ends its stdin, and it decides. Its limits are
// its own, never a language's factor; once the program's side is gone,
// no test runs.
func TestInteractModeGivesTheInteractorItsFiles(t *testing.T) {
	t.Parallel()
	g, spec := inProcess(t, interactScript)
	h := newLiveHost(t, map[int]string{
		0: in(protocol.LiveGo, 0, "") + in(protocol.LiveIn, 0, "42\n") + in(protocol.LiveEOF, 0, ""),
		1: in(protocol.LiveGo, 1, "") + in(protocol.LiveIn, 1, "7\n") + in(protocol.LiveEnd, 1, ""),
	}, nil)
	tests := []protocol.Test{
		{Name: "a", Stdin: []byte("21\n"), Expect: []byte("42\n")},
		{Name: "b", Stdin: []byte("3\n"), Expect: []byte("8\n")},
		{Name: "c", Stdin: []byte("5\n"), Expect: []byte("5\n")},
	}
	cfg := runargs.Args{Timeout: time.Minute, TestTimeout: 10 * time.Second, CPUTime: 3 * time.Second, TimeFactor: 3}
	res, failed := runTests(withDeadline(t), cfg, tests, g, spec, limits.MaxOutputBytes, modeOf(protocol.RoleInteract, "", h.toLoop, h.r))
	assert.Assert(t, failed == nil, "%+v", failed)
	assert.DeepEqual(t, h.frames(), []string{"ready 0", `io 0 "21\n"`, "shut 0", "done 0", "ready 1", `io 1 "3\n"`, "shut 1", "done 1", "ready 2"})
	assert.DeepEqual(t, verdictsOf(res), []string{"ok", "program_error", "program_error"})
	assert.Check(t, res[1].Exit.Code == 1 && !res[1].Stopped, "%+v", res[1])
	assert.Check(t, is.Contains(res[1].Stderr, "wanted 8\n"))
	for _, r := range res[:2] {
		assert.Check(t, r.TimeLimitMS == 10000 && r.CPUTimeLimitMS == 3000, "the interactor's own limits: %+v", r)
		paths := strings.Fields(r.Stderr)
		if assert.Check(t, len(paths) >= 2, r.Stderr) {
			assert.Check(t, filepath.Base(paths[0]) == "input" && filepath.Base(paths[1]) == "answer", r.Stderr)
			_, err := os.Stat(filepath.Dir(paths[0]))
			assert.Check(t, os.IsNotExist(err), "the test's files are removed: %v", err)
		}
	}
	assert.Check(t, res[2].NotRun && res[2].Error.Message == "not run: the program ended before it", "%+v", res[2])
}

// TestLiveModeDeadlineComesFirst: a test whose =go never came before the
// request's context ended (its deadline) did not run, a timeout that is
// not the program's, and neither did any test after it: the deadline's,
// not the other side's end. (The host here ends the context once it sees
// the first =ready, so no clock decides what the test sees.)
func TestLiveModeDeadlineComesFirst(t *testing.T) {
	t.Parallel()
	g, spec := inProcess(t, `exit 0`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	h := newLiveHost(t, map[int]string{0: "", 1: ""}, func(int) { cancel() })
	cfg := runargs.Args{Timeout: time.Hour}
	res, failed := runTests(ctx, cfg, []protocol.Test{{Name: "a"}, {Name: "b"}}, g, spec, limits.MaxOutputBytes, modeOf(protocol.RoleInteractive, "", h.toLoop, h.r))
	assert.Assert(t, failed == nil, "%+v", failed)
	assert.Check(t, is.DeepEqual(h.frames(), []string{"ready 0", "ready 1"}))
	for _, r := range res {
		assert.Check(t, r.NotRun && r.Verdict == protocol.TestTimeout && r.TimeLimitMS == 0, "%+v", r)
		assert.Check(t, is.Equal(r.Error.Message, "not run: the request's deadline of 1h0m0s came first"))
	}
}
