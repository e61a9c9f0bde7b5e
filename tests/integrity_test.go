package tests

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/poll"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// The integrity suite attacks the judge: the runner that decides the
// verdict shares the program's uid and PID namespace, so each test here is
// a Python program that tries to read, rewrite, signal or starve it.

// TestIntegrityRunnerProcIsClosed: the program cannot open the memory,
// descriptors, environment or OOM score of any process but its own: the
// runner (PID 1) and its decoy are non-dumpable, so their /proc files
// belong to root.
func TestIntegrityRunnerProcIsClosed(t *testing.T) {
	needEngine(t)
	t.Parallel()
	r := py(t, nil, procAttack)
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	var got map[string]string
	assert.NilError(t, json.Unmarshal([]byte(r.res.Output), &got), r.res.Output)
	t.Logf("from the program: %v", got)
	for _, name := range procAttackFiles {
		for _, who := range []string{"1/", "other/"} {
			e := got[who+name]
			assert.Check(t, e == "EACCES" || e == "EPERM", "/proc/%s%s: %q", who, name, e)
		}
	}
}

// forgedFrame is a complete, valid response frame claiming success.
const forgedFrame = `{"v":8,"ok":true,"result":42,"result_type":"int","output":"forged\n","output_truncated":false,"output_bytes":7,"exit":{"code":0}}`

// TestIntegrityForgedFrame: a program that writes a complete fake response
// wherever it can reach (every descriptor of every process in /proc it can
// open, its own stdout and stderr) and exits 3 gets its own verdict,
// program_error, with exit 3 reported.
func TestIntegrityForgedFrame(t *testing.T) {
	needEngine(t)
	t.Parallel()
	r := py(t, nil, `import os, sys
frame = (`+strconv.Quote(forgedFrame)+` + "\n").encode()
reached = []
for pid in (p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()):
    for fd in range(0, 8):
        path = "/proc/%s/fd/%d" % (pid, fd)
        try:
            f = os.open(path, os.O_WRONLY)
            os.write(f, frame)
            os.close(f)
            reached.append(path)
        except OSError:
            pass
print("reached %r" % reached, flush=True)
sys.stdout.buffer.write(frame); sys.stdout.flush()
sys.stderr.buffer.write(frame); sys.stderr.flush()
os._exit(3)`)
	t.Logf("verdict %s, exit %d: %s", r.res.Verdict, r.code, strings.TrimSpace(r.stderr))
	assert.Check(t, is.Equal(r.code, 1), r.stdout+r.stderr)
	assert.Check(t, is.Equal(r.res.Verdict, "program_error"))
	assert.Check(t, r.res.Sandboxed)
	assert.Check(t, is.Equal(string(r.res.Result), "null"))
	// No descriptor of another process was reached; the frame is in the
	// output and in stderr, as the program's own bytes.
	var streams struct {
		Stderr string `json:"stderr"`
	}
	assert.NilError(t, json.Unmarshal([]byte(r.stdout), &streams))
	assert.Check(t, strings.HasPrefix(r.res.Output, "reached []\n"), r.res.Output)
	assert.Check(t, is.Equal(strings.Count(r.res.Output, forgedFrame), 1), r.res.Output)
	assert.Check(t, is.Equal(streams.Stderr, forgedFrame+"\n"))
	assert.Check(t, is.Contains(r.stdout, `"exec_exit":{"code":3,"signal":null}`))
}

// TestIntegritySignalsToTheRunner: every signal the program sends the
// runner (PID 1), SIGKILL included, leaves the run to the program: it
// goes on and ends ok. So do forged fault signals queued with a si_code
// of the sender's choosing, which the filter refuses.
func TestIntegritySignalsToTheRunner(t *testing.T) {
	needEngine(t)
	t.Parallel()
	for _, sig := range []string{"SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGSEGV", "SIGUSR1", "SIGKILL"} {
		t.Run(sig, func(t *testing.T) {
			t.Parallel()
			r := py(t, nil, "import os, signal, time\nos.kill(1, signal."+sig+")\ntime.sleep(0.3)\nprint('alive')")
			assert.Check(t, is.Equal(r.code, 0), r.stdout+r.stderr)
			assert.Check(t, is.Equal(r.res.Verdict, "ok"))
			assert.Check(t, is.Equal(r.res.Output, "alive\n"))
		})
	}
	t.Run("queued", func(t *testing.T) {
		t.Parallel()
		// rt_sigqueueinfo and pidfd_send_signal with a siginfo of the
		// sender's own (si_code SI_QUEUE) would make a fault signal look
		// like the runner's own fault.
		r := py(t, nil, `import ctypes, os, signal, time
libc = ctypes.CDLL(None, use_errno=True)
info = (ctypes.c_int * 32)(signal.SIGSEGV, 0, -1)
out = []
ctypes.set_errno(0)
ret = libc.syscall(129, 1, signal.SIGSEGV, info)  # rt_sigqueueinfo
out.append("rt_sigqueueinfo %d %d" % (ret, ctypes.get_errno()))
fd = os.pidfd_open(1)
ctypes.set_errno(0)
ret = libc.syscall(424, fd, signal.SIGSEGV, info, 0)  # pidfd_send_signal
out.append("pidfd_send_signal %d %d" % (ret, ctypes.get_errno()))
ctypes.set_errno(0)
ret = libc.syscall(424, fd, signal.SIGUSR1, None, 0)
out.append("plain pidfd_send_signal %d %d" % (ret, ctypes.get_errno()))
time.sleep(0.3)
print("; ".join(out))`)
		assert.Check(t, is.Equal(r.code, 0), r.stdout+r.stderr)
		assert.Check(t, is.Equal(r.res.Verdict, "ok"))
		filtered := strconv.Itoa(limits.FilterErrno)
		assert.Check(t, is.Equal(r.res.Output, "rt_sigqueueinfo -1 "+filtered+"; pidfd_send_signal -1 "+filtered+"; plain pidfd_send_signal 0 0\n"))
	})
}

// repeat runs f n times, four at a time, and returns each verdict seen
// with its count.
func repeat(t *testing.T, n int, f func() toolResult) map[string]int {
	t.Helper()
	var mu sync.Mutex
	seen := map[string]int{}
	var wg sync.WaitGroup
	slots := make(chan struct{}, 4)
	for i := 0; i < n; i++ {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			r := f()
			mu.Lock()
			defer mu.Unlock()
			seen[r.res.Verdict]++
			if r.res.Verdict == "sandbox_failure" || r.res.Verdict == "" {
				t.Errorf("exit %d: %s%s", r.code, r.stdout, r.stderr)
			}
		}()
	}
	wg.Wait()
	return seen
}

// TestIntegrityForkBomb: a classic fork bomb is the program's failure,
// never the sandbox's: the runner needs no new process or thread once the
// program runs. 20 runs.
func TestIntegrityForkBomb(t *testing.T) {
	needEngine(t)
	t.Parallel()
	seen := repeat(t, 20, func() toolResult {
		return py(t, nil, "import os\nwhile True:\n    os.fork()", "--timeout", "20s")
	})
	t.Logf("fork bomb verdicts: %v", seen)
	for v := range seen {
		assert.Check(t, v == "ok" || v == "program_error" || v == "timeout", "verdict %q", v)
	}
}

// TestIntegrityPidsFullThenWrite: a program that holds every free PID with
// sleeping children, and threads too, then writes output and exits 0 ends
// ok with its output, 20 of 20 runs.
func TestIntegrityPidsFullThenWrite(t *testing.T) {
	needEngine(t)
	t.Parallel()
	seen := repeat(t, 20, func() toolResult {
		r := py(t, nil, `import os, sys, threading, time
kids = 0
while True:
    try:
        pid = os.fork()
    except BlockingIOError:
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    kids += 1
threads = 0
try:
    while True:
        threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
        threads += 1
except RuntimeError:
    pass
sys.stdout.write("x" * 100000)
sys.stdout.flush()
print("\nkids", kids > 0, "threads", threads, flush=True)
os._exit(0)`, "--timeout", "20s")
		if r.res.Verdict == "ok" {
			assert.Check(t, r.res.OutputTruncated, "output flagged")
			assert.Check(t, r.res.OutputBytes > int64(100000+len("\nkids True threads ")), "all output counted: %d", r.res.OutputBytes)
		}
		return r
	})
	t.Logf("pids-full-then-write verdicts: %v", seen)
	assert.Check(t, is.DeepEqual(seen, map[string]int{"ok": 20}))
}

// TestIntegritySocketFamilies: only AF_UNIX, AF_INET and AF_INET6 sockets
// can be made (and AF_NETLINK's routing protocol, for interface lists);
// AF_ALG (the kernel crypto API), AF_VSOCK (a VM host's services) and
// AF_PACKET get the filter's own errno.
func TestIntegritySocketFamilies(t *testing.T) {
	needEngine(t)
	t.Parallel()
	r := py(t, nil, `import json, socket
out = {}
for name, fam, typ, proto in [("unix", socket.AF_UNIX, socket.SOCK_STREAM, 0), ("inet", socket.AF_INET, socket.SOCK_STREAM, 0),
        ("inet6", socket.AF_INET6, socket.SOCK_DGRAM, 0), ("netlink_route", socket.AF_NETLINK, socket.SOCK_RAW, 0),
        ("netlink_audit", socket.AF_NETLINK, socket.SOCK_RAW, 9), ("alg", socket.AF_ALG, socket.SOCK_SEQPACKET, 0),
        ("vsock", socket.AF_VSOCK, socket.SOCK_STREAM, 0), ("packet", socket.AF_PACKET, socket.SOCK_RAW, 0),
        ("bluetooth", 31, socket.SOCK_STREAM, 0)]:
    try:
        socket.socket(fam, typ, proto).close()
        out[name] = 0
    except OSError as e:
        out[name] = e.errno
try:
    a, b = socket.socketpair(socket.AF_UNIX)
    out["socketpair_unix"] = 0
except OSError as e:
    out["socketpair_unix"] = e.errno
print(json.dumps(out, sort_keys=True))`)
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	var got map[string]int
	assert.NilError(t, json.Unmarshal([]byte(r.res.Output), &got), r.res.Output)
	t.Logf("socket errnos: %v", got)
	f := limits.FilterErrno
	assert.Check(t, is.DeepEqual(got, map[string]int{
		"unix": 0, "inet": 0, "inet6": 0, "socketpair_unix": 0, "netlink_route": 0,
		"netlink_audit": f, "alg": f, "vsock": f, "packet": f, "bluetooth": f,
	}))
}

// reaperBound is how long after its supervisor's SIGKILL a run's container
// may still be listed: the reaper takes a second or two, and the runs'
// own deadlines are 60 s, so a container gone within it was removed, not
// ended by its deadline, on however slow a machine.
const reaperBound = 30 * time.Second

// killedSupervisor starts `run` with args, waits until the container's
// program runs (or, with a hostile runner, its hello was judged), SIGKILLs
// the supervisor and returns how long its container outlived it.
func killedSupervisor(t *testing.T, args ...string) time.Duration {
	t.Helper()
	cmd := exec.Command(toolBin, args...)
	assert.NilError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	owner := fmt.Sprintf("%s:%d:%s", bootID(t), cmd.Process.Pid, startTicks(t, cmd.Process.Pid))
	filter := "label=io.synapse-isolation.owner=" + owner
	runID := owner
	poll.WaitOn(t, func(poll.LogT) poll.Result {
		out, _ := exec.Command("docker", "ps", "--quiet", "--filter", filter, "--filter", "status=running").Output()
		if strings.TrimSpace(string(out)) != "" {
			return poll.Success()
		}
		return poll.Continue("run %s not running yet", runID)
	}, poll.WithTimeout(20*time.Second), poll.WithDelay(50*time.Millisecond))
	time.Sleep(1500 * time.Millisecond) // past the hello: the program runs
	assert.NilError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	killed := time.Now()
	poll.WaitOn(t, func(poll.LogT) poll.Result {
		out, _ := exec.Command("docker", "ps", "--all", "--quiet", "--filter", filter).Output()
		if strings.TrimSpace(string(out)) == "" {
			return poll.Success()
		}
		return poll.Continue("run %s still listed %s after its supervisor died", runID, time.Since(killed).Round(time.Millisecond))
	}, poll.WithTimeout(reaperBound), poll.WithDelay(50*time.Millisecond))
	return time.Since(killed)
}

// TestIntegrityKilledSupervisorLeavesNoContainer: a supervisor SIGKILLed
// during an endless program leaves no container beyond reaperBound, and
// neither does one whose runner hangs past its own deadline (a hostile
// runner that ignores it): the container's end does not depend on the
// runner.
func TestIntegrityKilledSupervisorLeavesNoContainer(t *testing.T) {
	needEngine(t)
	t.Parallel()
	t.Run("endless program", func(t *testing.T) {
		t.Parallel()
		took := killedSupervisor(t, "run", "--image", pythonImage, "--timeout", "60s", "--code", "while True:\n    pass", "--", "python3", "-")
		t.Logf("container gone %s after its supervisor's SIGKILL", took.Round(time.Millisecond))
	})
	t.Run("hanging runner", func(t *testing.T) {
		t.Parallel()
		took := killedSupervisor(t, "run", "--image", hostileImage, "--timeout", "60s", "--code", "hang")
		t.Logf("container gone %s after its supervisor's SIGKILL", took.Round(time.Millisecond))
	})
}

// procAttack is a Python program that tries to open, as an attacker
// would, the runner's (PID 1) and every other process's memory,
// descriptors, environment, OOM score and maps, and prints the first
// errno each file of each kind gave ("opened" if every one opened).
const procAttack = `import errno, json, os
me = os.getpid()
out = {}
for pid in sorted(int(p) for p in os.listdir("/proc") if p.isdigit()):
    if pid == me:
        continue
    for name, flags in [("mem", os.O_RDWR), ("fd/0", os.O_RDONLY), ("fd/1", os.O_WRONLY), ("environ", os.O_RDONLY), ("oom_score_adj", os.O_WRONLY), ("maps", os.O_RDONLY)]:
        key = "1/" + name if pid == 1 else "other/" + name
        try:
            os.close(os.open("/proc/%d/%s" % (pid, name), flags))
            got = "opened"
        except OSError as e:
            got = errno.errorcode.get(e.errno, str(e.errno))
        if out.get(key, "opened") == "opened":
            out[key] = got
print(json.dumps(out, sort_keys=True))`

// procAttackFiles are the files procAttack tries.
var procAttackFiles = []string{"mem", "fd/0", "fd/1", "environ", "oom_score_adj", "maps"}
