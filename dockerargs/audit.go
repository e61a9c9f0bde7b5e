package dockerargs

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// Status is the state of one boundary in an audited argv.
type Status string

// The three states a boundary can be in.
const (
	Enforced Status = "enforced"
	Missing  Status = "missing"
	Violated Status = "violated"
)

// Finding is the audit result for one boundary. ID is stable, for
// machines; Boundary and Detail are for people.
type Finding struct {
	ID       string `json:"id"`
	Boundary string `json:"boundary"`
	Status   Status `json:"status"`
	Detail   string `json:"detail"`
}

// Report is the audit of one argv: one finding per boundary, in a fixed order.
type Report struct {
	Findings []Finding `json:"findings"`
}

// Compliant reports whether every boundary is enforced.
func (r Report) Compliant() bool {
	for _, f := range r.Findings {
		if f.Status != Enforced {
			return false
		}
	}
	return len(r.Findings) > 0
}

// Problems returns the findings that are not enforced.
func (r Report) Problems() []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Status != Enforced {
			out = append(out, f)
		}
	}
	return out
}

// judge inspects the parsed argv for one boundary.
type judge func(p *parsed) (Status, string)

// UnreadableError is an argv that is not a `docker run` command line at
// all: nothing to judge, rather than a finding.
type UnreadableError struct{ Err error }

// Error describes what could not be read.
func (e *UnreadableError) Error() string { return "not a docker run command: " + e.Err.Error() }

// Unwrap returns the underlying cause.
func (e *UnreadableError) Unwrap() error { return e.Err }

// AuditOptions says what an auditor allows beyond the policy's defaults.
type AuditOptions struct {
	// CLI is the client the argv must start with (a name, or a path ending
	// in it); empty means docker.
	CLI string
	// AllowRuntimes are OCI runtimes the auditor accepts. A runtime
	// enforces every boundary, so any other --runtime is a finding.
	AllowRuntimes []string
	// Seccomp holds the files that the argv's seccomp= options name, as the
	// caller read them (Audit does no I/O; SeccompPaths lists them). A
	// profile that was not read cannot be verified, which is a finding.
	Seccomp map[string]ProfileFile
}

// ProfileFile is a seccomp profile file as read by the caller: its bytes,
// or why they could not be read.
type ProfileFile struct {
	Content []byte
	Err     error
}

// SeccompPaths returns the files named by the seccomp= options of a
// `docker run` argv, for the caller to read before Audit; none for an argv
// Audit cannot read, or whose options are all "unconfined".
func SeccompPaths(argv []string, cli string) []string {
	p, err := parseRun(argv, cli)
	if err != nil {
		return nil
	}
	var out []string
	for _, kv := range securityOpts(p) {
		if kv[0] == "seccomp" && kv[1] != "unconfined" && kv[1] != "" {
			out = append(out, kv[1])
		}
	}
	return out
}

// Audit parses any `docker run` argv (as a shell would have split it) and
// reports each boundary of the policy as enforced, missing or violated.
// An argv that is not a `docker run` command line at all (another command,
// a missing image, a flag without its value) is an *UnreadableError.
func Audit(argv []string, o AuditOptions) (Report, error) {
	p, err := parseRun(argv, o.CLI)
	if err != nil {
		return Report{}, &UnreadableError{Err: err}
	}
	p.allowRuntimes = o.AllowRuntimes
	p.seccomp = o.Seccomp
	var r Report
	for _, b := range limits.Boundaries {
		if b.AuditUnder(p.runtime()) == "" {
			continue
		}
		st, detail := judges[b.ID](p)
		r.Findings = append(r.Findings, Finding{ID: b.ID, Boundary: b.Name, Status: st, Detail: detail})
	}
	return r, nil
}

// judgeEntrypoint requires the image's own runner as PID 1: no
// --entrypoint, and no --init, which bind-mounts the host's docker-init
// binary into the container and runs it as PID 1 instead.
func judgeEntrypoint(p *parsed) (Status, string) {
	if st, d := forbidden("entrypoint")(p); st != Enforced {
		return st, d
	}
	if st, _ := boolean("init", false)(p); st != Enforced {
		return st, "--init runs the host's docker-init, bind-mounted from the host, as PID 1"
	}
	return Enforced, "no --entrypoint, --init"
}

// single judges a single-valued flag against one exact value.
func single(flag, want string) func(p *parsed) (Status, string) {
	return func(p *parsed) (Status, string) {
		v, ok := p.last(flag)
		switch {
		case !ok:
			return Missing, fmt.Sprintf("--%s %s not set", flag, want)
		case v != want:
			return Violated, fmt.Sprintf("--%s %s, want %s", flag, v, want)
		}
		return Enforced, fmt.Sprintf("--%s %s", flag, want)
	}
}

// boolean judges a boolean flag that must be on (want) or off (!want).
func boolean(flag string, want bool) func(p *parsed) (Status, string) {
	return func(p *parsed) (Status, string) {
		v, ok := p.last(flag)
		on, err := strconv.ParseBool(v)
		switch {
		case ok && err != nil:
			return Violated, fmt.Sprintf("--%s=%s is not a boolean", flag, v)
		case want && !ok:
			return Missing, fmt.Sprintf("--%s not set", flag)
		case on != want && ok:
			return Violated, fmt.Sprintf("--%s=%t", flag, on)
		case !want:
			return Enforced, fmt.Sprintf("no --%s", flag)
		}
		return Enforced, "--" + flag
	}
}

// forbidden judges flags that must not appear at all.
func forbidden(flags ...string) func(p *parsed) (Status, string) {
	return func(p *parsed) (Status, string) {
		var found []string
		for _, f := range flags {
			for _, v := range p.values[f] {
				found = append(found, fmt.Sprintf("--%s %s", f, v))
			}
		}
		if len(found) > 0 {
			return Violated, strings.Join(found, "; ")
		}
		return Enforced, "no --" + strings.Join(flags, ", --")
	}
}

// judges are the audit rules by boundary id: every row of the boundary
// table with an audit rule has one here, and nothing else (a test holds
// the two together). The flags each judges are the row's claims.
var judges = map[string]judge{
	"ephemeral":         boolean("rm", true),
	"user":              single("user", limits.User),
	"capabilities":      judgeCaps,
	"no-new-privileges": judgeNoNewPrivileges,
	"seccomp":           judgeSeccomp,
	"security-profiles": judgeProfiles,
	"read-only-root":    boolean("read-only", true),
	"tmp":               judgeTmpfs,
	"network":           judgeNetwork,
	"cpus":              judgeCPUs,
	"pids":              judgePIDs,
	"nofile":            judgeUlimit("nofile", 1, limits.NoFile),
	"core":              judgeUlimit("core", 0, limits.Core),
	"memory":            judgeMemory,
	"swap":              judgeSwap,
	"ipc":               single("ipc", limits.None),
	"log-driver":        single("log-driver", limits.None),
	"pull":              single("pull", limits.PullNever),
	"image":             judgeImage,
	"privileged":        boolean("privileged", false),
	"mounts":            forbiddenClaims("mounts"),
	"devices":           forbiddenClaims("devices"),
	"ports":             judgePorts,
	"namespaces":        judgeNamespaces,
	"environment":       forbiddenClaims("environment"),
	"groups":            forbiddenClaims("groups"),
	"sysctls":           forbiddenClaims("sysctls"),
	"entrypoint":        judgeEntrypoint,
	"runtime":           judgeRuntime,
	"threads":           judgeThreads,
	"cpu-time":          judgeCPUTime,
	"other-flags":       judgeOtherFlags,
}

// forbiddenClaims judges the flags a row claims as flags that must not
// appear at all.
func forbiddenClaims(id string) judge {
	b, _ := limits.Lookup(id)
	return forbidden(b.Claims...)
}

// claimed are the flags some row of the boundary table judges.
var claimed = func() map[string]bool {
	m := map[string]bool{}
	for _, b := range limits.Boundaries {
		for _, f := range b.Claims {
			m[f] = true
		}
	}
	return m
}()

// judgeOtherFlags fails closed: a flag that no row claims must be known
// and harmless.
func judgeOtherFlags(p *parsed) (Status, string) {
	var other []string
	for name := range p.values {
		if !claimed[name] && !harmless[name] {
			other = append(other, "--"+name)
		}
	}
	other = append(other, p.unknown...)
	sort.Strings(other)
	if len(other) > 0 {
		return Violated, "not allowed by the policy: " + strings.Join(other, ", ")
	}
	return Enforced, "none outside the policy"
}
