package fakedocker

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/attestation"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// A scenario is what the fake docker does in one mode, command by command.
// The zero scenario is a docker that works and a runner that attests
// perfectly but knows no answer to its request (see unknownMode).
type scenario struct {
	version     string        // what `docker --version` claims; "" is a current docker
	noImage     bool          // `docker image inspect` finds no such image
	labels      string        // the image's labels as `docker image inspect` prints them in JSON; empty is null
	labelsDelay time.Duration // before `docker image inspect` prints the labels: a slow engine, over ssh say
	psDown      bool          // `docker ps` cannot reach the daemon
	daemon      bool          // `docker info` answers, as an engine with every limit (engineInfo); otherwise it cannot reach the daemon
	eventsDown  bool          // `docker events` cannot reach the daemon
	oomEvent    bool          // `docker events` reports the container's OOM kill
	// dies: `docker events` of die events streams each container's die
	// (its run id and exit status) as the container exits; otherwise the
	// stream ends at once, having said nothing.
	dies bool
	// record is what `docker container inspect` prints of a container's
	// HostConfig after its run id: runtime, memory, memory+swap and pids
	// limit, tab-separated; empty is no such container.
	record string
	run    runScript
}

// A runScript is what `docker run` does, in the order docker and the
// runner do it; a nil or zero field is a step that does not happen.
type runScript struct {
	refused   *reply                    // before any container exists: docker fails, or (late-create) hangs with its create in flight
	unstarted *reply                    // the container is created, never started, and left behind
	warning   string                    // docker's stderr before the container starts
	start     time.Duration             // before the hello: a container slow to start
	hello     func(memory int64) string // the runner's first bytes; nil is the perfect hello for --memory
	pause     time.Duration             // after the hello, before the request is read
	early     *reply                    // after the hello, instead of reading the request
	bySource  bool                      // the request's source names the scenario whose reply follows
	reply     *reply                    // after the request; nil is unknownMode's
}

// A reply is how a container ends: what it writes, and how `docker run`
// exits.
type reply struct {
	delay  time.Duration // before anything is written: a slow or hung runner
	stdout string
	stderr string
	code   int  // docker run's exit status
	kept   bool // the container outlives the client: --rm does not remove it
	// held: --rm's removal, after the container's exit (its die), waits
	// until the test releases it (Release), a minute at the most.
	held bool
	// afterOthers: nothing is written until this many other containers
	// of the state directory have ended (their clients exited).
	afterOthers int
	act         func(c runCall) int // instead of the fields above: a runner that floods, a create that lands late
}

// scenarios are the fake's modes by name, as tests select them in EnvMode
// (or, under "by-source", in a request's source).
var scenarios = map[string]scenario{
	// The daemon and the client.
	"unreachable":      {psDown: true, run: runScript{refused: &reply{stderr: "docker: " + cannotConnect + "\n", code: 125, kept: true}}},
	"hang-unreachable": {psDown: true, run: runScript{reply: hang}},
	// A client that fails before any container exists (an unknown
	// context, say), with a status that is not docker's own 125.
	"no-container": {run: runScript{refused: &reply{stderr: `context "nope": context not found: no such file or directory` + "\n", code: 1, kept: true}}},
	"broken-cli":   {version: "28.0.1"},
	"no-image":     {noImage: true},
	// An image that declares its interpreter, well or badly.
	"python-label": {labels: `{"io.synapse-isolation.exec":"[\"python3\",\"-\"]"}`, run: runScript{reply: okReply}},
	"bad-label":    {labels: `{"io.synapse-isolation.exec":"python3 -"}`, run: runScript{reply: okReply}},
	"slow-labels":  {labelsDelay: 6 * time.Second, run: runScript{reply: okReply}}, // longer than a 5 s timeout
	// An image of an operator's set, its labels well or badly recorded.
	"own-packages": {labels: `{"io.synapse-isolation.debian-lock":"sha256:` + strings.Repeat("a", 64) +
		`","io.synapse-isolation.requirements":"sha256:` + strings.Repeat("b", 64) + `"}`, run: runScript{reply: okReply}},
	"bad-contents": {labels: `{"io.synapse-isolation.requirements":"md5:0123"}`, run: runScript{reply: okReply}},
	"exit125":      {run: runScript{unstarted: startFailure(125)}},
	"exit126":      {run: runScript{unstarted: startFailure(126)}},
	"exit127":      {run: runScript{unstarted: startFailure(127)}},
	"warning": {run: runScript{
		warning: "WARNING: Your kernel does not support swap limit capabilities or the cgroup is not mounted. Memory limited without swap.\n",
		reply:   okReply,
	}},
	// The client fails (its transport died) and the container runs on.
	"client-dies": {run: runScript{reply: &reply{stderr: "error during connect: the ssh command has exited with signal: killed\n", code: 1, kept: true}}},
	// The client dies with its create still in flight, before its
	// container said a word (one that spoke was created: an empty listing
	// after it is final); the create lands after the supervisor's first
	// listing, once that listing has answered.
	"late-create": {run: runScript{refused: &reply{act: startLateCreate}}},

	// The hello, written before anything is read from stdin, as the
	// runner writes it.
	"silent":             {run: runScript{hello: noHello, pause: time.Hour}},
	"hello-endless-line": {run: runScript{hello: fixedHello(`{"v":8,"selfcheck":{`), pause: time.Hour}},
	"hello-not-json":     {run: runScript{hello: fixedHello("hello, host\n"), reply: okReply}},
	"hello-oversized": {run: runScript{
		hello: fixedHello(`{"v":8,"selfcheck":{"env_keys":["` + strings.Repeat("K", 20<<10) + `"]}}` + "\n"),
		reply: okReply,
	}},
	"hello-weak":      {run: runScript{hello: weakHello, reply: okReply}},
	"wrong-memory":    {run: runScript{hello: fixedHello(attestation.Hello(attestation.Perfect(512 << 20))), reply: okReply}},
	"hello-twice":     {run: runScript{hello: func(m int64) string { return perfectHello(m) + perfectHello(m) }, reply: okReply}},
	"hello-then-exit": {run: runScript{early: &reply{}}},
	// A perfect hello but for a key said twice: a decoder keeping the
	// last would read version 2.
	"hello-duplicate-key": {run: runScript{hello: func(m int64) string { return strings.Replace(perfectHello(m), `{"v":8`, `{"v":1,"v":8`, 1) }, reply: okReply}},
	// A runner of protocol v1: no hello; it answers its request.
	"v1": {run: runScript{hello: noHello, reply: answer(strings.Replace(OKResponse, `"v":8`, `"v":1`, 1))}},
	// A container slow to start: its hello comes only after the host stopped waiting.
	"late-hello": {run: runScript{hello: noHello, reply: answer(perfectHello(512 << 20))}},
	// A host slow to start a container (software emulation, a loaded
	// runner): the perfect hello comes, but only after 4 s; the daemon
	// answers, so doctor gets as far as its selfcheck.
	"slow-start": {daemon: true, run: runScript{start: 4 * time.Second, reply: okReply}},

	// The reply to the request.
	"ok": {run: runScript{reply: okReply}},
	// Under gVisor: its hello, and the engine's record that proves what
	// gVisor hides; then with a record that allows swap, and none at all.
	"gvisor":          {record: gvisorRecord, run: runScript{hello: gvisorHello, reply: okReply}},
	"gvisor-swap":     {record: "runsc\t536870912\t-1\t" + strconv.Itoa(limits.GVisorHostPIDs), run: runScript{hello: gvisorHello, reply: okReply}},
	"gvisor-norecord": {run: runScript{hello: gvisorHello, reply: okReply}},
	"by-source":       {run: runScript{bySource: true}}, // so one batch can mix scenarios
	"slow":            {run: runScript{reply: &reply{delay: 400 * time.Millisecond, stdout: OKResponse + "\n"}}},
	"last":            {run: runScript{reply: &reply{afterOthers: 2, delay: time.Second, stdout: OKResponse + "\n"}}},            // answers a second after two others ended
	"after-first":     {run: runScript{reply: &reply{afterOthers: 1, delay: 400 * time.Millisecond, stdout: OKResponse + "\n"}}}, // answers 400 ms after another ended
	"program-error":   {run: runScript{reply: answer(ErrResponse)}},
	"hang":            {run: runScript{reply: hang}},
	"flood":           {run: runScript{reply: &reply{act: flood}}},
	"two-json":        {run: runScript{reply: answer(OKResponse, OKResponse)}},
	// A program error that then claims success: a decoder keeping the
	// last of a duplicate key would report ok.
	"response-duplicate-key": {run: runScript{reply: answer(strings.TrimSuffix(ErrResponse, "}") + `,"ok":true}`)}},
	"malformed":              {run: runScript{reply: answer(`{"v":8,"ok":tru`)}},
	"missing":                {run: runScript{reply: &reply{}}},
	"big-output": {run: runScript{reply: answer(fmt.Sprintf(`{"v":8,"ok":true,"result":null,"output":"%s","output_truncated":false,"output_bytes":%d}`,
		strings.Repeat("y", 64<<10+1), 64<<10+1))}},
	"big-response": {run: runScript{reply: answer(fmt.Sprintf(`{"v":8,"ok":true,"result":"%s","output":"","output_truncated":false,"output_bytes":0}`,
		strings.Repeat("z", 1<<20)))}},
	"nonzero-valid": {run: runScript{reply: &reply{stdout: OKResponse + "\n", code: 1}}},
	// The engine's die events streamed: a removal held after the
	// container exited 0, and a container that exits 1 after a valid
	// response.
	"held-removal":      {dies: true, run: runScript{reply: &reply{stdout: OKResponse + "\n", held: true}}},
	"dies-nonzero":      {dies: true, run: runScript{reply: &reply{stdout: OKResponse + "\n", code: 1}}},
	"exit137-oom":       {oomEvent: true, run: runScript{reply: &reply{code: 137}}},
	"exit137-kill":      {run: runScript{reply: &reply{code: 137}}},
	"command-not-found": {run: runScript{reply: answer(`{"v":8,"ok":false,"result":null,"output":"","output_truncated":false,"output_bytes":0,"error":{"type":"command","message":"start: exec: \"python3\": executable file not found in $PATH"}}`)}},
	"runner-oom":        {run: runScript{reply: answer(`{"v":8,"ok":false,"result":null,"output":"","output_truncated":false,"output_bytes":0,"error":{"type":"oom","message":"memory exhausted: 65523712 of 67108864 bytes in use (runner guard)"}}`)}},
	"runner-timeout":    {run: runScript{reply: answer(`{"v":8,"ok":false,"result":null,"output":"partial","output_truncated":false,"output_bytes":7,"error":{"type":"timeout","message":"stopped: runner deadline of 5s"}}`)}},
	// The runner stopped the program at the host's stop and answered; its
	// container's removal is held until the test releases it.
	"runner-stop-held": {run: runScript{reply: &reply{stdout: `{"v":8,"ok":false,"result":null,"output":"","output_truncated":false,"output_bytes":0,"error":{"type":"timeout","message":"stopped: the host's stop, 4.9s after the request"}}` + "\n", held: true}}},
	"usage":            {run: runScript{reply: answer(`{"v":8,"ok":true,"result":3,"result_type":"int","output":"","output_truncated":false,"output_bytes":0,"usage":{"cpu_us":1500,"memory_peak_bytes":9000000}}`)}},
	// A second of CPU in the moment the response took.
	"usage-cpu-claim":      {run: runScript{reply: answer(`{"v":8,"ok":true,"result":3,"result_type":"int","output":"","output_truncated":false,"output_bytes":0,"usage":{"cpu_us":5000000,"memory_peak_bytes":9000000}}`)}},
	"usage-peak-claim":     {run: runScript{reply: answer(`{"v":8,"ok":true,"result":3,"result_type":"int","output":"","output_truncated":false,"output_bytes":0,"usage":{"cpu_us":1500,"memory_peak_bytes":99999999999}}`)}},
	"cpu-limit":            {run: runScript{reply: answer(`{"v":8,"ok":false,"result":null,"output":"","output_truncated":false,"output_bytes":0,"error":{"type":"cpu_time","message":"CPU-time limit of 1s reached: 1s used"},"usage":{"cpu_us":50000,"memory_peak_bytes":9000000}}`)}},
	"exec-oom":             {oomEvent: true, run: runScript{reply: answer(execKilled)}},
	"exec-oom-events-fail": {eventsDown: true, run: runScript{reply: answer(execKilled)}},
}

// execKilled is the runner's account of an --exec program killed by a
// signal (the kernel's OOM killer, in the scenarios that use it).
const execKilled = `{"v":8,"ok":false,"result":null,"output":"","output_truncated":false,"output_bytes":0,"error":{"type":"exec","message":"signal: killed"},"exit":{"code":-1,"signal":"killed"}}`

var (
	okReply = answer(OKResponse)
	hang    = &reply{delay: time.Hour} // a runner that never answers
)

// answer is a reply of the given lines that exits 0.
func answer(lines ...string) *reply {
	return &reply{stdout: strings.Join(lines, "\n") + "\n"}
}

// startFailure is docker's own failure (status 125, 126 or 127) for a
// container it created and never started: the container is left for
// cleanup.
func startFailure(code int) *reply {
	return &reply{
		stderr: fmt.Sprintf("docker: Error response from daemon: failure in mode exit%d.\nSee 'docker run --help'.\n", code),
		code:   code,
		kept:   true,
	}
}

// unknownMode is the reply of a scenario that has none: the fake fails
// loudly and leaves the container.
func unknownMode(mode string) *reply {
	return &reply{stderr: fmt.Sprintf("fake docker: unknown mode %q\n", mode), code: 2, kept: true}
}

// perfectHello is the hello of a runner that enforces the whole policy
// with the given memory limit.
func perfectHello(memory int64) string {
	return attestation.Hello(attestation.Perfect(memory))
}

func gvisorHello(memory int64) string {
	return attestation.Hello(attestation.PerfectGVisor(memory))
}

// gvisorRecord is the record of a container run by the default argv under
// runsc.
var gvisorRecord = "runsc\t536870912\t536870912\t" + strconv.Itoa(limits.GVisorHostPIDs)

func weakHello(int64) string { return attestation.Hello(attestation.Weak()) }

func noHello(int64) string { return "" }

// fixedHello is a hello that does not depend on the memory limit.
func fixedHello(s string) func(int64) string {
	return func(int64) string { return s }
}
