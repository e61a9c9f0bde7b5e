package supervisor

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// verdictCase is one set of facts and what decide makes of them: the rule
// that decides, the verdict (OK: no error), and a part of the message.
type verdictCase struct {
	name string
	f    Facts
	rule string
	want protocol.Verdict
	msg  string
}

// planOnly are a run's plan words with nothing learned: a clean exit with no
// response read yet.
func planOnly() Facts {
	return Facts{endFacts: endFacts{hello: true}, name: "c1", image: "sha256:ab", command: "python3 -", memory: "64MiB", timeout: 2 * time.Second}
}

func with(change func(*Facts)) Facts {
	f := planOnly()
	change(&f)
	return f
}

func answered(typ string) *protocol.Response {
	r := &protocol.Response{V: protocol.Version}
	if typ != "" {
		r.Error = &protocol.Error{Type: typ, Message: "said " + typ}
	}
	return r
}

var (
	errRm     = &Error{Verdict: protocol.EngineFailure, Err: errors.New("docker rm -f: no engine")}
	errWait   = &Error{Verdict: protocol.EngineFailure, Err: errors.New("waiting for docker: gone")}
	errSignal = errors.New("signal: interrupt")
	oomSeen   = evidence{asked: true, seen: true}
	oomNone   = evidence{asked: true}
	oomFailed = evidence{asked: true, err: errors.New("events: no engine")}
	killedCmd = &protocol.Response{V: protocol.Version, Exit: &protocol.Exit{Code: -1, Signal: "killed"}}
)

// verdictCases are a case per rule, then a case per conflict between
// rules, the first of the two deciding.
var verdictCases = []verdictCase{
	{"unwaited", with(func(f *Facts) { f.waitErr, f.code = errWait, -1 }), "unwaited", protocol.EngineFailure, "waiting for docker"},
	{"removal failed", with(func(f *Facts) { f.code, f.rmErr = 3, errRm }), "removal failed > exited", protocol.EngineFailure, "container exited 3 (a valid response needs exit 0); then engine failure: docker rm -f"},
	{"removal failed alone", with(func(f *Facts) { f.rmErr = errRm }), "removal failed", protocol.EngineFailure, "docker rm -f: no engine"},
	{"interrupted", with(func(f *Facts) { f.interrupted, f.code = errSignal, -1 }), "interrupted", protocol.Interrupted, "signal: interrupt"},
	{"request ended", with(func(f *Facts) { f.requestEnded, f.code = errors.New("deadline of the batch"), 137 }), "request ended", protocol.Interrupted, "deadline of the batch"},
	{"host deadline", with(func(f *Facts) { f.hostDeadline, f.code = true, 137 }), "host deadline", protocol.Timeout, "container c1 passed the host deadline of 2s"},
	{"policy dropped", with(func(f *Facts) { f.warning, f.code = "WARNING: no swap limit", 137 }), "policy dropped", protocol.EngineFailure, "did not apply the whole policy: WARNING: no swap limit"},
	{"response too large", with(func(f *Facts) { f.tooLarge, f.code = true, 137 }), "response too large", protocol.SandboxFailure, "response larger than"},
	{"killed, evidence unasked", with(func(f *Facts) { f.code = 137 }), "killed, evidence unasked", "", errNeedOOMEvidence.Error()},
	{"killed, evidence failed", with(func(f *Facts) { f.code, f.oom = 137, oomFailed }), "killed, evidence failed", protocol.EngineFailure, "checking for an OOM event: events: no engine"},
	{"killed at the memory limit", with(func(f *Facts) { f.code, f.oom = 137, oomSeen }), "killed at the memory limit", protocol.OOM, "container c1 was killed at its memory limit"},
	{"killed", with(func(f *Facts) { f.code, f.oom, f.stderr = 137, oomNone, "x" }), "killed", protocol.SandboxFailure, "killed (exit 137) without an OOM event; docker: x"},
	{"docker failed", with(func(f *Facts) { f.code = 125 }), "docker failed", protocol.EngineFailure, "docker run exited 125: (no stderr)"},
	{"client killed", with(func(f *Facts) { f.code, f.killedBy = -1, "signal: killed" }), "client killed", protocol.SandboxFailure, "docker run was killed: signal: killed"},
	{"client outlived", with(func(f *Facts) { f.code, f.stillRan, f.stderr = 1, true, "EOF" }), "client outlived", protocol.EngineFailure, "exited 1 while its container still ran; it was removed: EOF"},
	{"exited", with(func(f *Facts) { f.code = 2 }), "exited", protocol.SandboxFailure, "container exited 2 (a valid response needs exit 0)"},
	{"response refused", with(func(f *Facts) {
		f.respErr = &Error{Verdict: protocol.SandboxFailure, Err: errors.New("response: not JSON")}
	}), "response refused", protocol.SandboxFailure, "not JSON"},
	{"judged", with(func(f *Facts) { f.judged, f.resp = true, answered(protocol.ErrCompile) }), "judged", protocol.OK, ""},
	{"cpu time", with(func(f *Facts) { f.resp = answered(protocol.ErrCPUTime) }), "cpu time", protocol.CPUTimeout, "the runner stopped the program: said cpu_time"},
	{"runner's oom", with(func(f *Facts) { f.resp = answered(protocol.ErrOOM) }), "runner's oom", protocol.OOM, "exhausted its 64MiB memory limit: said oom"},
	{"runner's timeout", with(func(f *Facts) { f.resp = answered(protocol.ErrTimeout) }), "runner's timeout", protocol.Timeout, "at the deadline of 2s: said timeout"},
	{"command not found", with(func(f *Facts) { f.resp = answered(protocol.ErrCommand) }), "command not found", protocol.CommandNotFound, "python3 - in image sha256:ab: said command"},
	{"command killed, evidence unasked", with(func(f *Facts) { f.resp = killedCmd }), "command killed, evidence unasked", "", errNeedOOMEvidence.Error()},
	{"command killed, evidence failed", with(func(f *Facts) { f.resp, f.oom = killedCmd, oomFailed }), "command killed, evidence failed", protocol.EngineFailure, "the command was killed; checking for an OOM event"},
	{"command killed at the memory limit", with(func(f *Facts) { f.resp, f.oom = killedCmd, oomSeen }), "command killed at the memory limit", protocol.OOM, "killed at the 64MiB memory limit"},
	{"command killed, no oom", with(func(f *Facts) { f.resp, f.oom = killedCmd, oomNone }), "", protocol.OK, ""},
	{"ok", with(func(f *Facts) { f.resp = answered("") }), "", protocol.OK, ""},
	{"program error", with(func(f *Facts) { f.resp = answered(protocol.ErrRuntime) }), "", protocol.OK, ""},

	// Conflicts: the earlier rule decides.
	{"unwaited over interrupted", with(func(f *Facts) { f.waitErr, f.interrupted = errWait, errSignal }), "unwaited", protocol.EngineFailure, "waiting for docker"},
	{"removal failed keeps the interrupt", with(func(f *Facts) { f.rmErr, f.interrupted, f.code = errRm, errSignal, -1 }), "removal failed > interrupted", protocol.EngineFailure, "interrupted: signal: interrupt; then engine failure"},
	{"removal failed asks for evidence first", with(func(f *Facts) { f.rmErr, f.code = errRm, 137 }), "removal failed > killed, evidence unasked", "", errNeedOOMEvidence.Error()},
	{"interrupted over the host deadline", with(func(f *Facts) { f.interrupted, f.hostDeadline = errSignal, true }), "interrupted", protocol.Interrupted, "signal"},
	{"interrupted over a request's end", with(func(f *Facts) { f.interrupted, f.requestEnded = errSignal, errors.New("r") }), "interrupted", protocol.Interrupted, "signal"},
	{"host deadline over an OOM kill", with(func(f *Facts) { f.hostDeadline, f.code, f.oom = true, 137, oomSeen }), "host deadline", protocol.Timeout, "host deadline"},
	{"policy dropped over a clean exit", with(func(f *Facts) { f.warning, f.resp = "WARNING: x", answered("") }), "policy dropped", protocol.EngineFailure, "WARNING: x"},
	{"too large over docker's failure", with(func(f *Facts) { f.tooLarge, f.code = true, 125 }), "response too large", protocol.SandboxFailure, "response larger"},
	{"an OOM kill over the client outliving", with(func(f *Facts) { f.code, f.stillRan, f.oom = 137, true, oomSeen }), "killed at the memory limit", protocol.OOM, "memory limit"},
	{"docker failed over the client outliving", with(func(f *Facts) { f.code, f.stillRan = 125, true }), "docker failed", protocol.EngineFailure, "exited 125"},
	{"response refused over its own stop", with(func(f *Facts) {
		f.respErr, f.resp = &Error{Verdict: protocol.SandboxFailure, Err: errors.New("usage")}, answered(protocol.ErrOOM)
	}), "response refused", protocol.SandboxFailure, "usage"},
	{"judged over a compile step's message", with(func(f *Facts) { f.judged, f.resp = true, answered(protocol.ErrTimeout) }), "judged", protocol.OK, ""},
	{"a runner's stop over a killed command", with(func(f *Facts) {
		f.resp = answered(protocol.ErrTimeout)
		f.resp.Exit = &protocol.Exit{Code: -1, Signal: "killed"}
	}), "runner's timeout", protocol.Timeout, "said timeout"},
}

// TestDecide is the verdict table, a case per rule and per conflict.
func TestDecide(t *testing.T) {
	for _, c := range verdictCases {
		t.Run(c.name, func(t *testing.T) {
			err, rule := decideBy(rules, c.f)
			assert.Check(t, is.Equal(rule, c.rule))
			checkVerdict(t, err, c.want, c.msg)
		})
	}
}

func checkVerdict(t *testing.T, err error, want protocol.Verdict, msg string) {
	t.Helper()
	switch {
	case want == "" && msg == errNeedOOMEvidence.Error():
		assert.Check(t, errors.Is(err, errNeedOOMEvidence), "got %v", err)
	case want == protocol.OK:
		assert.Check(t, is.Nil(err))
	default:
		assert.Check(t, is.Equal(VerdictOf(err), want), "%v", err)
		assert.Check(t, is.ErrorContains(err, msg))
	}
}

// TestEveryRuleDecides shows the table has no dead rule: left without any
// one of its rules, some case of TestDecide is decided otherwise.
func TestEveryRuleDecides(t *testing.T) {
	var fs []Facts
	for _, c := range verdictCases {
		fs = append(fs, c.f)
	}
	everyRuleDecides(t, rules, fs, func(a, b error) bool {
		return fmt.Sprint(a) == fmt.Sprint(b) && VerdictOf(a) == VerdictOf(b)
	})
}

// TestRuleNamesAreOne holds each rule's name unique, as the cases name
// the rule that decides.
func TestRuleNamesAreOne(t *testing.T) { ruleNamesAreOne(t, rules) }

// everyRuleDecides checks that table has no dead rule: left without any
// one of its rules, some of cases is decided otherwise (same: not).
func everyRuleDecides[F, V any](t *testing.T, table []rule[F, V], cases []F, same func(a, b V) bool) {
	t.Helper()
	for i, r := range table {
		without := slices.Delete(slices.Clone(table), i, i+1)
		changed := false
		for _, f := range cases {
			got, _ := decideBy(without, f)
			want, _ := decideBy(table, f)
			if !same(got, want) {
				changed = true
				break
			}
		}
		assert.Check(t, changed, "without rule %q every case is decided the same", r.name)
	}
}

// ruleNamesAreOne holds each rule's name unique, and each rule to then or
// around, one of them.
func ruleNamesAreOne[F, V any](t *testing.T, table []rule[F, V]) {
	t.Helper()
	seen := map[string]bool{}
	for _, r := range table {
		assert.Check(t, !seen[r.name], "rule %q twice", r.name)
		seen[r.name] = true
		assert.Check(t, (r.then == nil) != (r.around == nil), "rule %q: then or around, one of them", r.name)
	}
}

// TestEndRulesShared: the run's table and the refusal's each hold every
// shared rule (endRules), in its order, and no rule of their own by a
// shared rule's name.
func TestEndRulesShared(t *testing.T) {
	var want []string
	for _, r := range endRules {
		want = append(want, r.name)
	}
	shared := func(names []string) []string {
		return slices.DeleteFunc(names, func(n string) bool { return !slices.Contains(want, n) })
	}
	assert.DeepEqual(t, shared(ruleNames(rules)), want)
	assert.DeepEqual(t, shared(ruleNames(refusalRules)), want)
}

func ruleNames[F, V any](table []rule[F, V]) []string {
	var names []string
	for _, r := range table {
		names = append(names, r.name)
	}
	return names
}
