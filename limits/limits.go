package limits

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// Fixed bounds. They are not configurable: each is a boundary the tool
// promises, and the audit checks argvs against exactly these values.
const (
	// UID and GID are the unprivileged identity ("nobody") every program runs as.
	UID = 65534
	GID = 65534
	// CPUs is the CPU quota, in whole CPUs.
	CPUs = 1
	// PIDs is the cgroup task limit; it counts threads as well as processes.
	PIDs = 64
	// GVisorHostPIDs is the host's --pids-limit under gVisor, whose own
	// threads live in that cgroup beside the program's: about 26 for the
	// gofer and the sentry, and 2 to 4 per task of the program (seen here:
	// a full table of 64 spinning tasks lived at 320 and killed the whole
	// sandbox at 192). The program's own cap is PIDs, as RLIMIT_NPROC.
	GVisorHostPIDs = 4*PIDs + 64
	// NoFile is the soft and hard RLIMIT_NOFILE.
	NoFile = 64
	// Core is the soft and hard RLIMIT_CORE: no core dumps.
	Core = 0
	// TmpBytes is the size of the /tmp tmpfs, the only writable place.
	TmpBytes = 32 << 20
	// MaxRequestBytes bounds an encoded request.
	MaxRequestBytes = 64 << 10
	// MaxLineBytes bounds a batch line, without its newline: a request at
	// its limit plus room for the id.
	MaxLineBytes = MaxRequestBytes + 4<<10
	// MaxOutputBytes bounds the captured program output; more is truncated and flagged.
	MaxOutputBytes = 64 << 10
	// MaxResponseBytes bounds the container's encoded response; more is a sandbox failure.
	MaxResponseBytes = 1 << 20
	// MaxHelloBytes bounds the runner's hello line (its attestation,
	// without the newline); more is a sandbox failure.
	MaxHelloBytes = 16 << 10
)

// A judge's request: one program and its tests (see protocol.Test).
const (
	// MaxTests bounds the tests of one request.
	MaxTests = 256
	// MaxTestName bounds a test's name, in bytes.
	MaxTestName = 64
	// MaxTestData bounds the tests' stdin and expected outputs together.
	// They travel after the request, outside its MaxRequestBytes, and the
	// runner keeps each test's stdin in /tmp: half of TmpBytes, so the
	// program keeps the other half.
	MaxTestData = TmpBytes / 2
	// CompileTimeout is the compile step's wall-clock limit, within the
	// request's own timeout; CompileCPUTime its CPU-time limit.
	CompileTimeout = 15 * time.Second
	CompileCPUTime = 10 * time.Second
	// MaxCompileOutput bounds what a response keeps of the compiler's
	// stdout and stderr together (head and tail), out of MaxOutputBytes:
	// the tests share the rest.
	MaxCompileOutput = 16 << 10
	// MinTestTimeout is the shortest wall-clock limit of one test.
	MinTestTimeout = 100 * time.Millisecond
)

// Configurable bounds and their ranges.
const (
	DefaultMemory  Bytes = 512 << 20
	MinMemory      Bytes = 64 << 20
	MaxMemory      Bytes = 1 << 40
	DefaultTimeout       = 10 * time.Second
	MaxTimeout           = 10 * time.Minute
	// MinTimeout is the shortest timeout of a run in a container: the
	// deadline covers the container's start, and a bare `docker run` of
	// the reference image takes about 0.35 to 0.66 s on a quiet engine, so
	// a shorter timeout would pass before any runner could say hello and
	// report a timeout that no program caused. 1s leaves the program a
	// little time beyond a start; eval, in process, needs no start
	// (CheckWallClock).
	MinTimeout = time.Second
	// MaxParallel bounds how many containers one pool keeps at once,
	// ready or running.
	MaxParallel = 64
	// MaxIdle bounds how long a container started ahead of its request
	// (a warm pool) waits for one before it ends on its own.
	MaxIdle = 10 * time.Minute
	// MinIdle is the shortest idle cap: a pool gives no request to a
	// container within 5 s of its cap, so a shorter one would leave it
	// nothing to serve.
	MinIdle = 10 * time.Second
	// DefaultIdle is how long a pool's container waits for its request
	// before it ends on its own, when no idle cap is given.
	DefaultIdle = 60 * time.Second
)

// Config is the configurable part of the policy. A zero field means its
// default; Resolve fills the defaults and checks the ranges.
type Config struct {
	// Memory is the container memory limit; swap is capped to the same
	// value so the program gets no swap at all.
	Memory Bytes
	// Timeout is the host-enforced wall-clock limit for one run.
	Timeout time.Duration
	// CPUTime, when set, is the CPU time (user plus system, of the program
	// and everything it started) after which the runner stops the program.
	// Zero means none: the wall-clock Timeout alone bounds the run.
	CPUTime time.Duration
	// TestTimeout, when set, is each test's wall-clock limit in a judge's
	// request. Zero shares the time the compile step left fairly: each
	// test gets the time still left divided by the tests still to run, so
	// a quick test leaves its rest to those after it.
	TestTimeout time.Duration
}

// Resolved is a Config whose defaults Resolve filled in and whose bounds
// it checked: the one check of a run's limits. Whoever takes a Resolved
// does not check its bounds again; one made any other way is not Valid.
type Resolved struct {
	Config
	valid bool
}

// Valid reports whether r was made by Resolve.
func (r Resolved) Valid() bool { return r.valid }

// Resolve returns c with its zero fields set to the defaults, or the first
// bound that is out of range.
func (c Config) Resolve() (Resolved, error) {
	if c.Memory == 0 {
		c.Memory = DefaultMemory
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if err := CheckMemory(c.Memory); err != nil {
		return Resolved{}, err
	}
	if err := CheckTimeout(c.Timeout); err != nil {
		return Resolved{}, err
	}
	if err := CheckCPUTime(c.CPUTime, c.Timeout); err != nil {
		return Resolved{}, err
	}
	if err := CheckTestTimeout(c.TestTimeout, c.Timeout); err != nil {
		return Resolved{}, err
	}
	return Resolved{Config: c, valid: true}, nil
}

// CheckTestTimeout checks a test's wall-clock limit (zero: a fair share
// of the timeout): from MinTestTimeout to the timeout.
func CheckTestTimeout(d, timeout time.Duration) error {
	switch {
	case d == 0:
		return nil
	case d < MinTestTimeout:
		return &FieldError{Field: "test-timeout", Value: d.String(), Msg: "must be at least " + MinTestTimeout.String()}
	case d > timeout:
		return &FieldError{Field: "test-timeout", Value: d.String(), Msg: "must be at most the timeout (" + timeout.String() + ")"}
	}
	return nil
}

// MinCPUTime is the shortest CPU-time limit: the runner samples the CPU
// counter every 10 ms, so a shorter limit could not be kept to its word.
const MinCPUTime = 10 * time.Millisecond

// CheckCPUTime checks a CPU-time limit (zero: none). It may not exceed
// the wall-clock timeout: with one CPU a program cannot use more CPU time
// than wall time, so a larger limit could never be reached.
func CheckCPUTime(d, timeout time.Duration) error {
	switch {
	case d == 0:
		return nil
	case d < MinCPUTime:
		return &FieldError{Field: "cpu-time", Value: d.String(), Msg: "must be at least " + MinCPUTime.String()}
	case d > timeout:
		return &FieldError{Field: "cpu-time", Value: d.String(), Msg: "must be at most the timeout (" + timeout.String() + ")"}
	}
	return nil
}

// MaxTimeFactor is the largest time factor a language may declare: a
// judge's slowest languages are given a few times a C limit, and a larger
// factor would be a limit nobody chose.
const MaxTimeFactor = 10

// CheckTimeFactor checks a language's time factor (zero: none, which is
// 1): from 1 to MaxTimeFactor, at most two decimal places, so the factor
// an argv shows is the one applied. A language is never given less than
// the C limit that --test-timeout and --cpu-time name.
func CheckTimeFactor(f float64) error {
	switch {
	case f == 0:
		return nil
	case !(f >= 1 && f <= MaxTimeFactor):
		return &FieldError{Field: "time-factor", Value: strconv.FormatFloat(f, 'g', -1, 64), Msg: fmt.Sprintf("must be from 1 to %d", MaxTimeFactor)}
	case math.Abs(f*100-math.Round(f*100)) > 1e-9:
		return &FieldError{Field: "time-factor", Value: strconv.FormatFloat(f, 'g', -1, 64), Msg: "must have at most two decimal places"}
	}
	return nil
}

// CheckMemory checks a memory limit against the policy's range.
func CheckMemory(n Bytes) error {
	switch {
	case n < MinMemory:
		return &FieldError{Field: "memory", Value: n.String(), Msg: "must be at least " + MinMemory.String()}
	case n > MaxMemory:
		return &FieldError{Field: "memory", Value: n.String(), Msg: "must be at most " + MaxMemory.String()}
	}
	return nil
}

// CheckIdle checks an idle cap, from MinIdle to MaxIdle.
func CheckIdle(d time.Duration) error {
	if d < MinIdle || d > MaxIdle {
		return &FieldError{Field: "idle", Value: d.String(), Msg: fmt.Sprintf("must be from %s to %s", MinIdle, MaxIdle)}
	}
	return nil
}

// CheckParallel checks how many containers a pool may keep at once, from
// 1 to MaxParallel.
func CheckParallel(n int) error {
	if n < 1 || n > MaxParallel {
		return &FieldError{Field: "parallel", Value: strconv.Itoa(n), Msg: fmt.Sprintf("must be from 1 to %d", MaxParallel)}
	}
	return nil
}

// CheckTimeout checks the wall-clock limit of a run in a container
// against the policy's range, from MinTimeout to MaxTimeout: the one check
// of run, batch and the library.
func CheckTimeout(d time.Duration) error {
	if d > 0 && d < MinTimeout {
		return &FieldError{Field: "timeout", Value: d.String(), Msg: "must be at least " + MinTimeout.String()}
	}
	return CheckWallClock(d)
}

// CheckWallClock checks a wall-clock limit that has no container start to
// cover: above zero and at most MaxTimeout. Eval, in process, and the
// runner's own deadline inside a container that started already go by it.
func CheckWallClock(d time.Duration) error {
	switch {
	case d <= 0:
		return &FieldError{Field: "timeout", Value: d.String(), Msg: "must be greater than 0"}
	case d > MaxTimeout:
		return &FieldError{Field: "timeout", Value: d.String(), Msg: "must be at most " + MaxTimeout.String()}
	}
	return nil
}
