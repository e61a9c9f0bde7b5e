package supervisor

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// refusalCase is one set of a refused run's facts and what decideRefusal
// makes of them: the rules that decide, the verdict, its whole message,
// and whether docker run's exit status is the container's.
type refusalCase struct {
	name string
	f    refusalFacts
	rule string
	want protocol.Verdict
	msg  string
	exit bool
}

var (
	errSilent    = &noHelloError{within: 5 * time.Second}
	errLateHello = &noHelloError{within: 2 * time.Second, own: true}
	errBadHello  = &Error{Verdict: protocol.SandboxFailure, Err: errors.New("hello: want a JSON object")}
	startSeen    = evidence{asked: true, seen: true}
	startNone    = evidence{asked: true}
	startFailed  = evidence{asked: true, err: errors.New("events: no engine")}
	needStart    = errNeedStartEvidence.Error()
)

// silentRun is a run whose runner said nothing within 5s, its client
// killed, nothing else learned; change adds what was.
func silentRun(change func(*refusalFacts)) refusalFacts {
	f := refusalFacts{cause: errSilent, endFacts: endFacts{code: -1, stderr: "(unknown)"}}
	change(&f)
	return f
}

// refusalCases are a case per rule, then a case per conflict between
// rules, the first of the two deciding.
var refusalCases = []refusalCase{
	{"unwaited", silentRun(func(f *refusalFacts) { f.waitErr = errWait }), "unwaited", protocol.EngineFailure,
		"engine failure: waiting for docker: gone", false},
	{"engine unreached", silentRun(func(f *refusalFacts) { f.code, f.rmErr, f.stderr = 1, errRm, "docker: unknown context" }),
		"engine unreached > engine unreached, unsaid", protocol.EngineFailure, "engine failure: docker run exited 1 before any hello: docker: unknown context", false},
	{"engine unreached, said by docker", silentRun(func(f *refusalFacts) { f.code, f.rmErr, f.stderr = 125, errRm, "docker: cannot connect" }),
		"engine unreached > docker's own exit, engine unlisted > docker failed", protocol.EngineFailure, "engine failure: docker run exited 125: docker: cannot connect", false},
	{"removal failed", silentRun(func(f *refusalFacts) { f.cause, f.hello, f.rmErr = errBadHello, true, errRm }),
		"removal failed > hello refused", protocol.EngineFailure, "sandbox failure: hello: want a JSON object; then engine failure: docker rm -f: no engine", true},
	{"docker's own exit, engine unlisted", silentRun(func(f *refusalFacts) { f.cause, f.hello, f.code, f.rmErr = errBadHello, true, 125, errRm }),
		"removal failed > docker's own exit, engine unlisted > hello refused", protocol.EngineFailure, "sandbox failure: hello: want a JSON object; then engine failure: docker rm -f: no engine", false},
	{"docker's own exit, start unasked", silentRun(func(f *refusalFacts) { f.code = 125 }), "docker's own exit, start unasked", "", needStart, false},
	{"docker's own exit, never started", silentRun(func(f *refusalFacts) { f.code, f.start, f.stderr = 125, startNone, "docker: no such image" }),
		"docker's own exit, never started > docker failed", protocol.EngineFailure, "engine failure: docker run exited 125: docker: no such image", false},
	{"interrupted", silentRun(func(f *refusalFacts) { f.interrupted = errSignal }), "interrupted", protocol.Interrupted, "interrupted: signal: interrupt", true},
	{"policy dropped", silentRun(func(f *refusalFacts) { f.warning = "WARNING: no swap limit" }), "policy dropped", protocol.EngineFailure,
		"engine failure: refusing the run: docker did not apply the whole policy: WARNING: no swap limit", true},
	{"hello refused", silentRun(func(f *refusalFacts) { f.cause, f.hello = errBadHello, true }), "hello refused", protocol.SandboxFailure,
		"sandbox failure: hello: want a JSON object", true},
	{"docker failed", silentRun(func(f *refusalFacts) { f.code = 127 }), "docker failed", protocol.EngineFailure, "engine failure: docker run exited 127: (unknown)", true},
	{"removal failed, unsaid", silentRun(func(f *refusalFacts) { f.rmErr = errRm }), "removal failed > removal failed, unsaid", protocol.EngineFailure,
		"no hello from the runner within 5s; then engine failure: docker rm -f: no engine", true},
	{"timed out", silentRun(func(f *refusalFacts) { f.cause, f.found = errLateHello, true }), "timed out", protocol.Timeout,
		"timeout: the deadline of 2s passed before the sandbox was ready (no hello from the runner yet); the program was never sent", true},
	{"timed out, no container found", silentRun(func(f *refusalFacts) { f.cause = errLateHello }), "timed out", protocol.Timeout,
		"timeout: the deadline of 2s passed before the sandbox was ready (no hello from the runner yet); the program was never sent", false},
	{"container found", silentRun(func(f *refusalFacts) { f.found = true }), "container found", protocol.SandboxFailure,
		"sandbox failure: no hello from the runner within 5s; the program was never sent", true},
	{"start unasked", silentRun(func(*refusalFacts) {}), "start unasked", "", needStart, false},
	{"start unknown", silentRun(func(f *refusalFacts) { f.start = startFailed }), "start unknown", protocol.EngineFailure,
		"engine failure: no hello from the runner within 5s; whether a container started is unknown: events: no engine", true},
	{"container started", silentRun(func(f *refusalFacts) { f.start = startSeen }), "container started", protocol.SandboxFailure,
		"sandbox failure: no hello from the runner within 5s; the program was never sent", true},
	{"no container started", silentRun(func(f *refusalFacts) { f.start = startNone }), "no container started", protocol.EngineFailure,
		"engine failure: docker started no container (docker run was stopped): (unknown)", false},

	// Conflicts: the earlier rule decides.
	{"unwaited over an interrupt and a failed removal", silentRun(func(f *refusalFacts) { f.waitErr, f.interrupted, f.rmErr = errWait, errSignal, errRm }),
		"unwaited", protocol.EngineFailure, "engine failure: waiting for docker: gone", false},
	{"engine unreached keeps the interrupt", silentRun(func(f *refusalFacts) { f.code, f.interrupted, f.rmErr = 1, errSignal, errRm }),
		"engine unreached > interrupted", protocol.Interrupted, "interrupted: signal: interrupt", false},
	{"removal failed keeps the interrupt", silentRun(func(f *refusalFacts) { f.interrupted, f.rmErr = errSignal, errRm }),
		"removal failed > interrupted", protocol.EngineFailure, "interrupted: signal: interrupt; then engine failure: docker rm -f: no engine", true},
	{"a refused hello is never unreached", silentRun(func(f *refusalFacts) { f.cause, f.hello, f.code, f.rmErr = errBadHello, true, 1, errRm }),
		"removal failed > hello refused", protocol.EngineFailure, "sandbox failure: hello: want a JSON object; then engine failure: docker rm -f: no engine", true},
	{"a clean exit is never unreached", silentRun(func(f *refusalFacts) { f.cause, f.code, f.rmErr = &noHelloError{}, 0, errRm }),
		"removal failed > removal failed, unsaid", protocol.EngineFailure, "the container exited 0 before the runner's hello; then engine failure: docker rm -f: no engine", true},
	{"docker's own exit, start unknown", silentRun(func(f *refusalFacts) { f.code, f.start = 125, startFailed }),
		"docker failed", protocol.EngineFailure, "engine failure: docker run exited 125: (unknown)", true},
	{"docker's own exit, started", silentRun(func(f *refusalFacts) { f.code, f.start = 125, startSeen }),
		"docker failed", protocol.EngineFailure, "engine failure: docker run exited 125: (unknown)", true},
	{"docker's own exit, interrupted", silentRun(func(f *refusalFacts) { f.code, f.start, f.interrupted = 125, startNone, errSignal }),
		"docker's own exit, never started > interrupted", protocol.Interrupted, "interrupted: signal: interrupt", false},
	{"interrupted over a dropped policy", silentRun(func(f *refusalFacts) { f.interrupted, f.warning = errSignal, "WARNING: x" }),
		"interrupted", protocol.Interrupted, "interrupted: signal: interrupt", true},
	{"a dropped policy over a refused hello", silentRun(func(f *refusalFacts) { f.warning, f.cause, f.hello = "WARNING: x", errBadHello, true }),
		"policy dropped", protocol.EngineFailure, "engine failure: refusing the run: docker did not apply the whole policy: WARNING: x", true},
	{"a refused hello over docker's failure", silentRun(func(f *refusalFacts) { f.cause, f.hello, f.code = errBadHello, true, 126 }),
		"hello refused", protocol.SandboxFailure, "sandbox failure: hello: want a JSON object", true},
	{"docker failed over a timeout", silentRun(func(f *refusalFacts) { f.cause, f.code, f.found = errLateHello, 127, true }),
		"docker failed", protocol.EngineFailure, "engine failure: docker run exited 127: (unknown)", true},
	{"removal failed over a timeout", silentRun(func(f *refusalFacts) { f.cause, f.rmErr = errLateHello, errRm }), "removal failed > removal failed, unsaid", protocol.EngineFailure,
		"the deadline of 2s passed before the sandbox was ready (no hello from the runner yet); then engine failure: docker rm -f: no engine", true},
	{"a partial hello is no timeout", silentRun(func(f *refusalFacts) {
		f.cause, f.found = &noHelloError{within: 2 * time.Second, own: true, partial: true}, true
	}),
		"container found", protocol.SandboxFailure, "sandbox failure: no hello from the runner within 2s; the program was never sent", true},
	{"a found container over its start", silentRun(func(f *refusalFacts) { f.found, f.start = true, startNone }),
		"container found", protocol.SandboxFailure, "sandbox failure: no hello from the runner within 5s; the program was never sent", true},
}

// TestDecideRefusal is the refusal table, a case per rule and per
// conflict.
func TestDecideRefusal(t *testing.T) {
	for _, c := range refusalCases {
		t.Run(c.name, func(t *testing.T) {
			v, rule := decideBy(refusalRules, c.f)
			assert.Check(t, is.Equal(rule, c.rule))
			assert.Check(t, is.Equal(v.exit, c.exit), "exit")
			if c.msg == needStart {
				assert.Check(t, errors.Is(v.err, errNeedStartEvidence), "got %v", v.err)
				return
			}
			assert.Check(t, is.Equal(VerdictOf(v.err), c.want), "%v", v.err)
			assert.Check(t, is.Error(v.err, c.msg))
		})
	}
}

// TestRefusalAsksForStartOnce: the daemon's start is asked at most once,
// and never where the removal failed (an engine that cannot be listed is
// not asked for its events).
func TestRefusalAsksForStartOnce(t *testing.T) {
	for _, c := range refusalCases {
		for _, answer := range []evidence{startSeen, startNone, startFailed} {
			f := c.f
			f.start = answer
			assert.Check(t, !errors.Is(decideRefusal(f).err, errNeedStartEvidence), "%s: asks again once answered", c.name)
		}
		if c.f.rmErr != nil {
			assert.Check(t, !errors.Is(decideRefusal(c.f).err, errNeedStartEvidence), "%s: asks with the removal failed", c.name)
		}
	}
}

// TestEveryRefusalRuleDecides shows the refusal table has no dead rule:
// left without any one of its rules, some case of TestDecideRefusal is
// decided otherwise.
func TestEveryRefusalRuleDecides(t *testing.T) {
	var fs []refusalFacts
	for _, c := range refusalCases {
		fs = append(fs, c.f)
	}
	everyRuleDecides(t, refusalRules, fs, func(a, b refusalVerdict) bool {
		return fmt.Sprint(a.err) == fmt.Sprint(b.err) && VerdictOf(a.err) == VerdictOf(b.err) && a.exit == b.exit
	})
}

// TestRefusalRuleNamesAreOne holds each refusal rule's name unique, as the
// cases name the rules that decide, and each case's name.
func TestRefusalRuleNamesAreOne(t *testing.T) {
	ruleNamesAreOne(t, refusalRules)
	names := map[string]bool{}
	for _, c := range refusalCases {
		assert.Check(t, !names[c.name], "case %q twice", c.name)
		names[c.name] = true
	}
}
