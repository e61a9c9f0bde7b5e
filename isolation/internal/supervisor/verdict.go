package supervisor

import (
	"errors"
	"fmt"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/docker"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// endFacts are what both of a run's verdict tables know of its docker
// run: whether a hello came, how docker run ended, the caller's
// interrupt, a policy docker dropped and what the removal found. The
// rules of those facts (endRules) are the tables' shared rules.
type endFacts struct {
	// hello: a hello line came (a run's passed; a refused run's was
	// refused). A docker run that failed before any hello most likely
	// reached no engine (unreached).
	hello bool
	// waitErr: docker run could not be waited for; its state is unknown.
	waitErr error
	// code is docker run's exit status, -1 when a signal ended it.
	code int
	// stderr is docker's own stderr on one line: a run's "" for none
	// (docker.StderrWatch.Joined), a refused run's "(unknown)" (Quoted).
	stderr string
	// interrupted is the caller's context's end (a signal, say): its cause.
	interrupted error
	// warning is a WARNING line docker printed: it drops a limit it
	// cannot apply, and says so only there.
	warning string
	// rmErr is the removal's failure: the container may still exist.
	rmErr error
}

// unreached: docker run failed before any hello, so most likely reached
// no engine (an unknown context, an unreachable daemon). One listing
// decides such a run's removal; if the engine cannot be listed either,
// docker's own failure is the verdict, said once.
func (f *endFacts) unreached() bool {
	return !f.hello && f.code > 0
}

// Facts are what a run learned once its request was sent: how docker run
// ended (endFacts), why the run was stopped early, what the removal found,
// the engine's OOM evidence and the response. The run gathers them
// (Launched.Gather, Launched.Teardown) and decide turns them into one verdict; nothing in
// decide asks the engine or reads the clock, so every rule is tested
// in-process.
type Facts struct {
	endFacts
	// The plan's words, for the messages.
	name, image, command, memory string
	timeout                      time.Duration

	// requestEnded is a pool request's own context's end: its cause.
	requestEnded error
	// hostDeadline: the host deadline passed and the run was killed.
	hostDeadline bool
	// tooLarge: the response passed limits.MaxResponseBytes.
	tooLarge bool
	// killedBy says how a signal ended docker run (code -1).
	killedBy string
	// end is when docker run was waited for.
	end time.Time
	// stillRan: the removal found the container after its client had
	// ended.
	stillRan bool
	// oom is the daemon's OOM event for the run's container, asked only
	// when a rule needs it (errNeedOOMEvidence).
	oom evidence
	// resp is the response of a clean exit, checked by the run (Facts.Accept), and
	// respErr why it was refused; judged: it is a judge's request's or a
	// compiled program's, whose verdict its steps decide.
	resp    *protocol.Response
	respErr error
	judged  bool
}

// Clean: docker run was waited for and exited 0, and nothing stopped the
// run early; docker run --rm has removed its container, and its response
// is read.
func (f *Facts) Clean() bool {
	return f.waitErr == nil && f.code == 0 && f.interrupted == nil && f.requestEnded == nil &&
		!f.hostDeadline && f.warning == "" && !f.tooLarge
}

// evidence is the answer to one question to the engine.
type evidence struct {
	asked, seen bool
	err         error
}

// errNeedOOMEvidence is decide's answer when the verdict turns on the
// daemon's OOM event, not yet asked: the run asks and decides again.
var errNeedOOMEvidence = errors.New("the verdict needs the daemon's OOM evidence")

// killedStatus is docker run's exit status when its container's main
// process was killed (128 + SIGKILL): by the kernel's OOM killer, or by
// anyone else.
const killedStatus = 128 + 9

// rule is one row of a verdict table over facts F: when it holds, its
// verdict V. A rule with around instead of then adds to the verdict the
// rules after it decide. The run's table decides an error (nil is the
// response's own ok or program_error), a refused run's a refusalVerdict.
type rule[F, V any] struct {
	name   string
	when   func(f *F) bool
	then   func(f *F) V
	around func(f *F, rest V) V
}

// The rules both tables hold, by their place in endRules.
const (
	endUnwaited = iota
	endRemovalFailed
	endInterrupted
	endPolicyDropped
	endDockerFailed
)

// endRules are the rules of docker run's end that the run's table (rules)
// and the refused run's (refusalRules) share, each table holding them all
// in this order among its own: docker run could not be waited for; the
// removal failed, which is said after the rest (once, by docker, for a
// run that reached no engine); the caller's interrupt; a policy docker
// dropped; docker's own failure, told by its exit status.
var endRules = [...]rule[endFacts, error]{
	endUnwaited: {name: "unwaited", when: func(f *endFacts) bool { return f.waitErr != nil }, then: func(f *endFacts) error { return f.waitErr }},
	endRemovalFailed: {name: "removal failed", when: func(f *endFacts) bool { return f.rmErr != nil && !f.unreached() }, around: func(f *endFacts, rest error) error {
		switch {
		case errors.Is(rest, errNeedOOMEvidence), errors.Is(rest, errNeedStartEvidence):
			return rest
		case rest != nil:
			return fmt.Errorf("%v; then %w", rest, f.rmErr)
		}
		return f.rmErr
	}},
	endInterrupted: {name: "interrupted", when: func(f *endFacts) bool { return f.interrupted != nil }, then: func(f *endFacts) error {
		return &Error{Verdict: protocol.Interrupted, Err: f.interrupted}
	}},
	endPolicyDropped: {name: "policy dropped", when: func(f *endFacts) bool { return f.warning != "" }, then: func(f *endFacts) error {
		return &Error{Verdict: protocol.EngineFailure, Err: fmt.Errorf("refusing the run: docker did not apply the whole policy: %s", f.warning)}
	}},
	endDockerFailed: {name: "docker failed", when: func(f *endFacts) bool { return docker.OwnStatus(f.code) }, then: func(f *endFacts) error {
		return &Error{Verdict: protocol.EngineFailure, Err: fmt.Errorf("docker run exited %d: %s", f.code, stderrOrNone(f.stderr))}
	}},
}

// lift is the shared rule r in a table over facts F and verdicts V: end
// is F's endFacts, verdict makes r's error a V, and keep applies an
// around's wrap to the error of the rest's V, keeping the rest of it.
func lift[F, V any](r rule[endFacts, error], end func(*F) *endFacts, verdict func(*F, error) V, keep func(V, func(error) error) V) rule[F, V] {
	l := rule[F, V]{name: r.name, when: func(f *F) bool { return r.when(end(f)) }}
	if r.then != nil {
		l.then = func(f *F) V { return verdict(f, r.then(end(f))) }
	}
	if r.around != nil {
		l.around = func(f *F, rest V) V {
			return keep(rest, func(err error) error { return r.around(end(f), err) })
		}
	}
	return l
}

// runEnd is the shared rule endRules[i] in the run's table.
func runEnd(i int) rule[Facts, error] {
	return lift(endRules[i], func(f *Facts) *endFacts { return &f.endFacts },
		func(_ *Facts, err error) error { return err },
		func(rest error, wrap func(error) error) error { return wrap(rest) })
}

// rules are the verdict table, in order: the first that holds decides.
// How docker run ended comes first (it could not be waited for; the
// removal failed, which outranks why the run stopped), then why the run
// was stopped early, then docker run's exit status with the engine's
// evidence, then the response of a clean exit.
var rules = []rule[Facts, error]{
	runEnd(endUnwaited),
	runEnd(endRemovalFailed),
	runEnd(endInterrupted),
	{name: "request ended", when: func(f *Facts) bool { return f.requestEnded != nil }, then: func(f *Facts) error {
		return &Error{Verdict: protocol.Interrupted, Err: f.requestEnded}
	}},
	{name: "host deadline", when: func(f *Facts) bool { return f.hostDeadline }, then: func(f *Facts) error {
		return &Error{Verdict: protocol.Timeout, Err: fmt.Errorf("container %s passed the host deadline of %s; it was removed and its output discarded", f.name, f.timeout)}
	}},
	runEnd(endPolicyDropped),
	{name: "response too large", when: func(f *Facts) bool { return f.tooLarge }, then: func(*Facts) error {
		return &Error{Verdict: protocol.SandboxFailure, Err: errResponseTooLarge}
	}},
	{name: "killed, evidence unasked", when: func(f *Facts) bool { return f.code == killedStatus && !f.oom.asked }, then: func(*Facts) error { return errNeedOOMEvidence }},
	{name: "killed, evidence failed", when: func(f *Facts) bool { return f.code == killedStatus && f.oom.err != nil }, then: func(f *Facts) error {
		return &Error{Verdict: protocol.EngineFailure, Err: fmt.Errorf("container exited 137; checking for an OOM event: %w", f.oom.err)}
	}},
	{name: "killed at the memory limit", when: func(f *Facts) bool { return f.code == killedStatus && f.oom.seen }, then: func(f *Facts) error {
		return &Error{Verdict: protocol.OOM, Err: fmt.Errorf("container %s was killed at its memory limit (daemon oom event, exit 137)", f.name)}
	}},
	{name: "killed", when: func(f *Facts) bool { return f.code == killedStatus }, then: func(f *Facts) error {
		return &Error{Verdict: protocol.SandboxFailure, Err: fmt.Errorf("container was killed (exit 137) without an OOM event%s", dockerSuffix(f.stderr))}
	}},
	runEnd(endDockerFailed),
	{name: "client killed", when: func(f *Facts) bool { return f.code == -1 }, then: func(f *Facts) error {
		return &Error{Verdict: protocol.SandboxFailure, Err: fmt.Errorf("docker run was killed: %s", f.killedBy)}
	}},
	{name: "client outlived", when: func(f *Facts) bool { return f.code != 0 && f.stillRan }, then: func(f *Facts) error {
		// docker run --rm returns once its container is gone; one still
		// there when the client ended was not what ended it: the client
		// failed (its transport died, say), not the sandbox.
		return &Error{Verdict: protocol.EngineFailure, Err: fmt.Errorf("docker run exited %d while its container still ran; it was removed: %s", f.code, stderrOrNone(f.stderr))}
	}},
	{name: "exited", when: func(f *Facts) bool { return f.code != 0 }, then: func(f *Facts) error {
		return &Error{Verdict: protocol.SandboxFailure, Err: fmt.Errorf("container exited %d (a valid response needs exit 0)%s", f.code, dockerSuffix(f.stderr))}
	}},
	{name: "response refused", when: func(f *Facts) bool { return f.respErr != nil }, then: func(f *Facts) error { return f.respErr }},
	{name: "judged", when: func(f *Facts) bool { return f.judged }, then: func(*Facts) error { return nil }},
	{name: "cpu time", when: func(f *Facts) bool { return respError(f) == protocol.ErrCPUTime }, then: func(f *Facts) error {
		return &Error{Verdict: protocol.CPUTimeout, Err: fmt.Errorf("the runner stopped the program: %s", f.resp.Error.Message)}
	}},
	{name: "runner's oom", when: func(f *Facts) bool { return respError(f) == protocol.ErrOOM }, then: func(f *Facts) error {
		// The runner outlived the program and says why, with its evidence:
		// its own guard, or the cgroup's OOM-kill counter.
		return &Error{Verdict: protocol.OOM, Err: fmt.Errorf("the program exhausted its %s memory limit: %s", f.memory, f.resp.Error.Message)}
	}},
	{name: "runner's timeout", when: func(f *Facts) bool { return respError(f) == protocol.ErrTimeout }, then: func(f *Facts) error {
		return &Error{Verdict: protocol.Timeout, Err: fmt.Errorf("the runner stopped the program at the deadline of %s: %s", f.timeout, f.resp.Error.Message)}
	}},
	{name: "command not found", when: func(f *Facts) bool { return respError(f) == protocol.ErrCommand }, then: func(f *Facts) error {
		return &Error{Verdict: protocol.CommandNotFound, Err: fmt.Errorf("%s in image %s: %s", f.command, f.image, f.resp.Error.Message)}
	}},
	// An exec-mode interpreter killed by SIGKILL: the cgroup's OOM killer
	// picks the largest process, which is the child, not the runner, so
	// the container itself exits 0.
	{name: "command killed, evidence unasked", when: func(f *Facts) bool { return commandKilled(f) && !f.oom.asked }, then: func(*Facts) error { return errNeedOOMEvidence }},
	{name: "command killed, evidence failed", when: func(f *Facts) bool { return commandKilled(f) && f.oom.err != nil }, then: func(f *Facts) error {
		return &Error{Verdict: protocol.EngineFailure, Err: fmt.Errorf("the command was killed; checking for an OOM event: %w", f.oom.err)}
	}},
	{name: "command killed at the memory limit", when: func(f *Facts) bool { return commandKilled(f) && f.oom.seen }, then: func(f *Facts) error {
		return &Error{Verdict: protocol.OOM, Err: fmt.Errorf("the command was killed at the %s memory limit (daemon oom event)", f.memory)}
	}},
}

// decide is the verdict of a run's facts: the first rule that holds, or
// nil (the response's own ok or program_error) when none does.
func decide(f Facts) error {
	err, _ := decideBy(rules, f)
	return err
}

// decideBy is the verdict of f under table, and the rules that decided
// it, an around's name first ("removal failed > exited"; "": none, and the
// zero verdict); the tests run it on tables with a rule left out.
func decideBy[F, V any](table []rule[F, V], f F) (V, string) {
	for i, r := range table {
		switch {
		case !r.when(&f):
		case r.around != nil:
			rest, by := decideBy(table[i+1:], f)
			if by != "" {
				by = " > " + by
			}
			return r.around(&f, rest), r.name + by
		default:
			return r.then(&f), r.name
		}
	}
	var none V
	return none, ""
}

// respError is the type of the response's error, "" for none.
func respError(f *Facts) string {
	if f.resp == nil || f.resp.Error == nil {
		return ""
	}
	return f.resp.Error.Type
}

// commandKilled: the response says its command was killed by SIGKILL.
func commandKilled(f *Facts) bool {
	return f.resp != nil && f.resp.Exit != nil && f.resp.Exit.Signal == "killed"
}

// dockerSuffix is docker's stderr as a message's suffix ("" for none).
func dockerSuffix(stderr string) string {
	if stderr == "" {
		return ""
	}
	return "; docker: " + stderr
}

// stderrOrNone is docker's stderr as a message names it.
func stderrOrNone(stderr string) string {
	if stderr == "" {
		return "(no stderr)"
	}
	return stderr
}
