package isolation

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/attest"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/docker"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/removal"
	"github.com/synapse-lang/synapse-isolation/isolation/internal/supervisor"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// Check is one line of the doctor's report. ID is stable, for machines;
// Name and Detail are for people.
type Check struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	// Proves says what a passing check of the container's own view shows.
	Proves string `json:"proves,omitempty"`
	// Skipped marks a check that was not made (OK stays true: nothing
	// failed); Detail says why and what would make it.
	Skipped bool `json:"skipped,omitempty"`
}

func pass(name, detail string) Check {
	return Check{ID: checkID(name), Name: name, OK: true, Detail: detail}
}
func fail(name, detail string) Check { return Check{ID: checkID(name), Name: name, Detail: detail} }

// checkID spells a check's name as an id: lowercase words joined by "-"
// ("uid/gid" is uid-gid, "/dev/shm" is dev-shm).
func checkID(name string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
	}), "-")
}

// brokenCLI lists docker CLI releases that truncate the output of attached
// containers, which would cut responses short.
var brokenCLI = map[string]bool{"28.0.0": true, "28.0.1": true, "28.0.2": true}

// engineInfo is the part of `docker info` the doctor reads.
type engineInfo struct {
	ServerVersion   string
	CgroupVersion   string
	CgroupDriver    string
	MemoryLimit     bool
	SwapLimit       bool
	PidsLimit       bool
	CPUCfsQuota     bool `json:"CpuCfsQuota"`
	SecurityOptions []string
	Warnings        []string
}

// Doctor checks that this engine can enforce every boundary: the CLI, the
// daemon and its limit support, the docker config, and, given an image,
// the image itself and what a container of it actually sees under the
// exact argv of run, within o.Limits.Timeout as a run would be (its
// container's start included). It never stops early: every check gets a
// line.
func Doctor(ctx context.Context, o Options) []Check {
	c, err := newClient(o.Engine)
	if err != nil {
		return []Check{fail("docker cli", err.Error())}
	}
	var checks []Check
	add := func(cs ...Check) { checks = append(checks, cs...) }

	// `docker --version` answers without the daemon, so an unreachable
	// daemon fails only the daemon check below.
	out, err := c.CLIVersion(ctx)
	v, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(out), "Docker version "), ",")
	switch {
	case err != nil:
		add(fail("docker cli", err.Error()))
	case brokenCLI[v]:
		add(fail("docker cli", c.Path()+" "+v+" truncates attached output; use another release"))
	default:
		add(pass("docker cli", c.Path()+" "+v))
	}

	out, err = c.Info(ctx)
	var info engineInfo
	if err == nil {
		err = json.Unmarshal([]byte(out), &info)
	}
	if err != nil || info.ServerVersion == "" {
		add(fail("daemon", fmt.Sprintf("unreachable: %v", err)))
		return append(checks, configCheck(c.Env()))
	}
	add(pass("daemon", "engine "+info.ServerVersion))
	add(engineChecks(info)...)
	add(configCheck(c.Env()))
	if o.Image == "" {
		// Said, not left out: a report of passes alone would read as if the
		// boundary had been checked.
		return append(checks, Check{ID: "container", Name: "container", OK: true, Skipped: true,
			Detail: "no container ran, so no boundary was checked inside one: give --image ID (or set SYNAPSE_IMAGE)"})
	}
	add(imageChecks(ctx, c, o.Image)...)
	add(interpreterCheck(ctx, c, o))
	return append(checks, selfcheckChecks(ctx, o)...)
}

// interpreterCheck says what run would feed the source to: the command
// after --, the one the image declares, or Starlark; a label that is not
// a valid command line fails, as run would refuse it.
func interpreterCheck(ctx context.Context, c *docker.Client, o Options) Check {
	if o.Exec != nil {
		return pass("interpreter", strings.Join(o.Exec, " ")+" (the command given)")
	}
	if limits.CheckImageID(o.Image) != nil {
		return fail("interpreter", "unknown: no valid image ID")
	}
	d, err := declared(ctx, c, o.Image)
	switch {
	case err != nil:
		return fail("interpreter", err.Error())
	case d.Exec == nil:
		return pass("interpreter", "starlark (the image declares none)")
	}
	return pass("interpreter", strings.Join(d.Exec, " ")+" (declared by the image's "+docker.ExecLabel+" label)")
}

func engineChecks(info engineInfo) []Check {
	var cs []Check
	rootless := false
	seccomp := false
	for _, opt := range info.SecurityOptions {
		rootless = rootless || strings.Contains(opt, "name=rootless")
		seccomp = seccomp || strings.Contains(opt, "name=seccomp")
	}
	cg := "cgroup v" + info.CgroupVersion + ", driver " + info.CgroupDriver
	if info.CgroupVersion == "1" || info.CgroupVersion == "2" {
		cs = append(cs, pass("cgroup", cg))
	} else {
		cs = append(cs, fail("cgroup", cg+": unknown version"))
	}
	for _, f := range []struct {
		name string
		ok   bool
	}{{"memory limit", info.MemoryLimit}, {"swap limit", info.SwapLimit}, {"pids limit", info.PidsLimit}, {"cpu limit", info.CPUCfsQuota}} {
		if f.ok {
			cs = append(cs, pass(f.name, "supported"))
		} else {
			cs = append(cs, fail(f.name, "not supported by this engine: run would refuse"))
		}
	}
	switch {
	case rootless && info.CgroupVersion == "1":
		cs = append(cs, fail("rootless", "rootless engine on cgroup v1 cannot apply resource limits"))
	case rootless:
		cs = append(cs, pass("rootless", "rootless engine on cgroup v2"))
	default:
		cs = append(cs, pass("rootless", "rootful engine"))
	}
	if seccomp {
		cs = append(cs, pass("security options", strings.Join(info.SecurityOptions, "; ")))
	} else {
		cs = append(cs, fail("security options", "no seccomp: "+strings.Join(info.SecurityOptions, "; ")))
	}
	var bad []string
	for _, w := range info.Warnings {
		lw := strings.ToLower(w)
		for _, k := range []string{"limit", "swap", "cgroup", "seccomp", "apparmor"} {
			if strings.Contains(lw, k) {
				bad = append(bad, w)
				break
			}
		}
	}
	if len(bad) > 0 {
		cs = append(cs, fail("engine warnings", strings.Join(bad, "; ")))
	} else {
		cs = append(cs, pass("engine warnings", fmt.Sprintf("none about limits (%d in all)", len(info.Warnings))))
	}
	return cs
}

// configCheck is run's refusal of a docker config that sets proxies
// (clientFor), said as the run would say it.
func configCheck(env []string) Check {
	path, err := docker.Proxies(env)
	if err != nil {
		return fail("docker config", (&Error{Verdict: protocol.EngineFailure, Err: err}).Error())
	}
	return pass("docker config", "no proxies in "+path)
}

func imageChecks(ctx context.Context, c *docker.Client, image string) []Check {
	if err := limits.CheckImageID(image); err != nil {
		return []Check{fail("image id", err.Error())}
	}
	cs := []Check{pass("image id", image)}
	out, err := c.InspectImage(ctx, "{{.Id}}\t{{.Config.User}}\t{{.Size}}", image)
	if err != nil {
		return append(cs, fail("image present", err.Error()))
	}
	f := strings.Split(strings.TrimSpace(out), "\t")
	if len(f) != 3 || f[0] != image {
		return append(cs, fail("image present", "inspect returned "+strings.TrimSpace(out)))
	}
	cs = append(cs, pass("image present", "local, "+f[2]+" bytes"))
	want := limits.User
	if f[1] == want {
		cs = append(cs, pass("image user", f[1]))
	} else {
		cs = append(cs, fail("image user", fmt.Sprintf("USER %q, want %s", f[1], want)))
	}
	return append(cs, contentsCheck(ctx, c, image))
}

// contentsCheck says which operator's set an image carries, by the
// SHA-256 its labels record of the Debian lock and the requirements file
// it was built from, so an auditor can match them to the files; an image
// with neither carries its kind's own packages alone.
func contentsCheck(ctx context.Context, c *docker.Client, image string) Check {
	lock, reqs, err := c.Contents(ctx, image)
	if err != nil {
		return fail("image contents", err.Error())
	}
	var said []string
	for _, l := range []struct{ name, label, value string }{
		{"Debian lock", docker.DebianLockLabel, lock},
		{"requirements", docker.RequirementsLabel, reqs},
	} {
		switch {
		case l.value == "":
		case !sha256Label.MatchString(l.value):
			return fail("image contents", fmt.Sprintf("label %s: want sha256:<64 hex>, got %q", l.label, limitText(l.value)))
		default:
			said = append(said, l.name+" "+l.value)
		}
	}
	if said == nil {
		return pass("image contents", "its kind's own packages (no "+docker.DebianLockLabel+" or "+docker.RequirementsLabel+" label)")
	}
	return pass("image contents", strings.Join(said, ", "))
}

var sha256Label = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// limitText bounds a label's value quoted in a report.
func limitText(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// selfcheckChecks runs the image's --selfcheck through Run, so under the
// exact argv of run, and lists each attestation check.
func selfcheckChecks(ctx context.Context, o Options) []Check {
	o.Exec = nil
	a := &attempt{start: time.Now()}
	err := a.run(ctx, protocol.Frame{}, o, planInput{owner: removal.SelfLabel(), selfcheck: true})
	if a.selfcheck == nil {
		if err == nil {
			err = fmt.Errorf("the image's runner returned no selfcheck report")
		}
		return []Check{fail("selfcheck", selfcheckFailure(err))}
	}
	// A hello came, so the run was planned: its resolved limits, runtime
	// and column are the ones its hello was judged under.
	p := a.plan
	checks := attestChecks(p.Column, attest.Sight{Hello: *a.selfcheck, Memory: p.Limits.Memory, Runtime: p.Runtime, Record: a.record})
	if a.recordErr != nil {
		checks = append(checks, fail("engine record", a.recordErr.Error()))
	}
	return checks
}

// attestChecks is the attestation of what a run saw (attest.Judge) as
// doctor's lines: one Check per proof, saying what it proves.
func attestChecks(col limits.Runtime, v attest.Sight) []Check {
	findings := attest.Judge(col, v)
	cs := make([]Check, 0, len(findings))
	for _, f := range findings {
		c := pass(f.Check, f.Seen)
		if f.Wrong != "" {
			c = fail(f.Check, f.Wrong+" (seen: "+f.Seen+")")
		}
		c.Proves = f.Proves
		cs = append(cs, c)
	}
	return cs
}

// slowStartHint follows a selfcheck whose deadline passed before the
// sandbox was ready: a slow host (software emulation, a loaded runner) can
// take longer than the run's default timeout to start a container, which
// proves nothing about the boundary, so the report says how to wait longer.
const slowStartHint = "on a slow host raise the deadline with doctor --timeout"

// selfcheckFailure is the selfcheck line's detail for a run that returned
// no report: its error, with slowStartHint when the run's own deadline
// passed before the runner's hello.
func selfcheckFailure(err error) string {
	if supervisor.HelloTimedOut(err) {
		return err.Error() + "; " + slowStartHint
	}
	return err.Error()
}
