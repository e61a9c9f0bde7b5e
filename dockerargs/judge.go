package dockerargs

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/synapse-lang/synapse-isolation/limits"
	"github.com/synapse-lang/synapse-isolation/limits/seccomp"
)

func judgeCaps(p *parsed) (Status, string) {
	if add := p.values["cap-add"]; len(add) > 0 {
		return Violated, "--cap-add " + strings.Join(add, ", ")
	}
	for _, v := range p.values["cap-drop"] {
		for _, c := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(c), "ALL") {
				return Enforced, "--cap-drop=ALL"
			}
		}
	}
	return Missing, "--cap-drop=ALL not set"
}

// securityOpts splits --security-opt values into key and value; docker
// accepts both key=value and the legacy key:value spelling.
func securityOpts(p *parsed) [][2]string {
	var out [][2]string
	for _, v := range p.values["security-opt"] {
		k, val, ok := strings.Cut(v, "=")
		if !ok {
			k, val, _ = strings.Cut(v, ":")
		}
		out = append(out, [2]string{k, val})
	}
	return out
}

func judgeNoNewPrivileges(p *parsed) (Status, string) {
	st, detail := Missing, "--security-opt no-new-privileges not set"
	for _, kv := range securityOpts(p) {
		if kv[0] != "no-new-privileges" {
			continue
		}
		on := kv[1] == ""
		if !on {
			b, err := strconv.ParseBool(kv[1])
			on = err == nil && b
		}
		if on {
			st, detail = Enforced, "--security-opt no-new-privileges"
		} else {
			st, detail = Violated, "--security-opt no-new-privileges="+kv[1]
		}
	}
	return st, detail
}

func judgeProfiles(p *parsed) (Status, string) {
	var bad []string
	for _, kv := range securityOpts(p) {
		switch {
		case kv[0] == "seccomp" || kv[0] == "no-new-privileges":
			// Judged by their own checks.
		case kv[0] == "apparmor" && kv[1] == "unconfined",
			kv[0] == "systempaths" && kv[1] == "unconfined",
			kv[0] == "label" && kv[1] == "disable":
			bad = append(bad, kv[0]+"="+kv[1])
		case kv[0] == "apparmor" || kv[0] == "label":
			// A custom profile file cannot be checked from the argv.
			bad = append(bad, kv[0]+"="+kv[1]+" (custom profile)")
		default:
			bad = append(bad, kv[0]+"="+kv[1]+" (unknown option)")
		}
	}
	if len(bad) > 0 {
		return Violated, "--security-opt " + strings.Join(bad, ", ")
	}
	return Enforced, "default apparmor and masked paths"
}

// judgeSeccomp requires exactly one seccomp= option naming a file whose
// content is the policy's profile, byte for byte. Without one the engine's
// default profile applies, which differs between engine versions (Docker
// allowed io_uring until 25.0).
func judgeSeccomp(p *parsed) (Status, string) {
	var paths []string
	for _, kv := range securityOpts(p) {
		if kv[0] == "seccomp" {
			paths = append(paths, kv[1])
		}
	}
	want := seccomp.SHA256()
	switch {
	case len(paths) == 0:
		return Missing, "no --security-opt seccomp=: the engine's default profile applies, which differs between engine versions"
	case len(paths) > 1:
		return Violated, "more than one --security-opt seccomp=: " + strings.Join(paths, ", ")
	case paths[0] == "unconfined":
		return Violated, "--security-opt seccomp=unconfined: no syscall filter at all"
	}
	path := paths[0]
	f, ok := p.seccomp[path]
	switch {
	case !ok:
		return Violated, fmt.Sprintf("cannot verify seccomp=%s: the file was not read", path)
	case f.Err != nil:
		return Violated, fmt.Sprintf("cannot verify seccomp=%s: %v", path, f.Err)
	}
	sum := sha256.Sum256(f.Content)
	if got := hex.EncodeToString(sum[:]); got != want {
		return Violated, fmt.Sprintf("seccomp=%s is not the policy's profile (sha256 %s, want %s)", path, got, want)
	}
	return Enforced, fmt.Sprintf("seccomp=%s: the policy's allowlist (sha256 %s): %s", path, want, seccomp.Summary())
}

func judgeTmpfs(p *parsed) (Status, string) {
	mounts := map[string]string{}
	var order []string
	for _, v := range p.values["tmpfs"] {
		path, opts, _ := strings.Cut(v, ":")
		if _, seen := mounts[path]; !seen {
			order = append(order, path)
		}
		mounts[path] = opts
	}
	for _, path := range order {
		if path != "/tmp" {
			return Violated, "--tmpfs " + path + ": the only writable place must be /tmp"
		}
	}
	opts, ok := mounts["/tmp"]
	if !ok {
		return Missing, "--tmpfs " + limits.Tmpfs + " not set"
	}
	set := map[string]string{}
	for _, o := range strings.Split(opts, ",") {
		k, v, _ := strings.Cut(o, "=")
		switch {
		case slices.Contains(limits.TmpFlags, "no"+k): // exec, suid, dev undo them
			delete(set, "no"+k)
		case slices.Contains(limits.TmpFlags, k):
			set[k] = ""
		}
		if k == "size" {
			set[k] = v
		}
	}
	for _, need := range limits.TmpFlags {
		if _, ok := set[need]; !ok {
			return Violated, "--tmpfs /tmp without " + need
		}
	}
	size, ok := set["size"]
	if !ok {
		return Violated, "--tmpfs /tmp without size= (unbounded up to half of RAM)"
	}
	n, err := limits.ParseBytes(size)
	if err != nil || n <= 0 || n > limits.TmpBytes {
		return Violated, fmt.Sprintf("--tmpfs /tmp size=%s, want at most %s", size, limits.Bytes(limits.TmpBytes))
	}
	return Enforced, "--tmpfs /tmp:" + opts
}

func judgeImage(p *parsed) (Status, string) {
	if err := limits.CheckImageID(p.image); err != nil {
		return Violated, fmt.Sprintf("image %q is not an immutable sha256: image ID", p.image)
	}
	return Enforced, p.image
}

func judgePorts(p *parsed) (Status, string) {
	if st, d := forbidden("publish")(p); st != Enforced {
		return st, d
	}
	if st, d := boolean("publish-all", false)(p); st != Enforced {
		return st, d
	}
	return Enforced, "no --publish, --publish-all"
}

func judgeNamespaces(p *parsed) (Status, string) {
	var bad []string
	row, _ := limits.Lookup("namespaces")
	for _, ns := range row.Claims {
		if v, ok := p.last(ns); ok && (v == "host" || strings.HasPrefix(v, "container:")) {
			bad = append(bad, "--"+ns+" "+v)
		}
	}
	if len(bad) > 0 {
		return Violated, strings.Join(bad, ", ")
	}
	return Enforced, "private pid, uts, user and cgroup namespaces"
}

// judgeNetwork requires every --network to be none: unlike most flags,
// docker accepts --network more than once and attaches all of them.
func judgeNetwork(p *parsed) (Status, string) {
	nets := p.values["network"]
	if len(nets) == 0 {
		return Missing, "--network none not set"
	}
	for _, n := range nets {
		if n != limits.None {
			return Violated, "--network " + n + ", want " + limits.None
		}
	}
	return Enforced, "--network none"
}

// judgeRuntime: the OCI runtime enforces every boundary of the argv, so a
// runtime other than the engine's default is a finding unless the table
// proves it (gVisor's runsc) or the auditor allowed it by name.
func judgeRuntime(p *parsed) (Status, string) {
	v, ok := p.last("runtime")
	_, unknown := limits.RuntimeOf(v)
	switch {
	case !ok:
		return Enforced, "the engine's default runtime"
	case unknown == nil:
		return Enforced, "--runtime " + v + " (the boundary table's " + string(p.runtime()) + " column judges every run's hello)"
	case slices.Contains(p.allowRuntimes, v):
		return Enforced, "--runtime " + v + " (allowed by the auditor)"
	}
	return Violated, fmt.Sprintf("--runtime %s enforces every boundary and is not allowed (audit --allow-runtime %s to accept it)", v, v)
}

// runtime is the boundary table's column for the argv's --runtime: the
// last one, as docker keeps it; one the table does not know is judged as
// runc here, and by judgeRuntime as a runtime not allowed.
func (p *parsed) runtime() limits.Runtime {
	v, _ := p.last("runtime")
	rt, err := limits.RuntimeOf(v)
	if err != nil {
		return limits.Runc
	}
	return rt
}

// judgePIDs requires the task limit of the argv's runtime: under runc
// --pids-limit is the program's, under gVisor it holds gVisor's own
// threads as well and RLIMIT_NPROC, which gVisor counts for the sandbox,
// is the program's.
func judgePIDs(p *parsed) (Status, string) {
	if p.runtime() != limits.Runsc {
		return judgeRange("pids-limit", limits.PIDs)(p)
	}
	host, hd := judgeRange("pids-limit", limits.GVisorHostPIDs)(p)
	nproc, nd := judgeUlimit("nproc", 1, limits.PIDs)(p)
	detail := hd + " and " + nd + " (gVisor)"
	switch {
	case host == Violated || nproc == Violated:
		return Violated, detail
	case host == Missing || nproc == Missing:
		return Missing, detail
	}
	return Enforced, detail
}
