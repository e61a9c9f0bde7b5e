package isolation

import (
	"fmt"
	"slices"
	"strings"
	"syscall"

	"github.com/synapse-lang/synapse-isolation/isolation/internal/docker"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/hello"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// judgeTmp judges /tmp: its mount options, size, mode and writability.
// Where the runtime prints no nodev (gVisor), byOption is false and the
// hello's mknod in /tmp stands in: it must fail with EPERM.
func judgeTmp(s hello.Selfcheck, byOption bool) (string, string) {
	seen := fmt.Sprintf("%s, %d bytes, mode %s, writable %t", s.TmpOptions, s.TmpBytes, s.TmpMode, s.TmpWritable)
	opts := strings.Split(s.TmpOptions, ",")
	var wrong []string
	if s.TmpOptions == "" {
		wrong = append(wrong, "/tmp is not its own mount")
	}
	flags := []struct{ opt, msg string }{{"noexec", "/tmp is executable"}, {"nosuid", "/tmp honours setuid"}, {"nodev", "/tmp allows devices"}}
	if !byOption {
		flags = flags[:2]
		seen += fmt.Sprintf(", mknod %s", errnoName(s.TmpMknod))
		if s.TmpMknod != int(syscall.EPERM) {
			wrong = append(wrong, "a device could be made in /tmp (mknod got "+errnoName(s.TmpMknod)+", want EPERM)")
		}
	}
	for _, o := range flags {
		if s.TmpOptions != "" && !slices.Contains(opts, o.opt) {
			wrong = append(wrong, o.msg)
		}
	}
	if s.TmpBytes != limits.TmpBytes {
		wrong = append(wrong, fmt.Sprintf("/tmp is %d bytes, want %d", s.TmpBytes, limits.TmpBytes))
	}
	if s.TmpMode != limits.TmpMode || !s.TmpWritable {
		wrong = append(wrong, fmt.Sprintf("/tmp is mode %s and writable %t, want %s and writable: "+
			"the image carries its own /tmp, whose mode docker keeps over the tmpfs; "+
			"build the image without /tmp, or with /tmp mode "+limits.TmpMode, orNone(s.TmpMode), s.TmpWritable, limits.TmpMode))
	}
	return seen, strings.Join(wrong, "; ")
}

// recordJudge reads the engine's record for one kind of proof of the
// boundary table, as helloJudge reads the hello.
type recordJudge struct {
	kind  string
	judge func(r docker.Record, memory limits.Bytes, runtime string) (seen, wrong string)
}

// recordJudges are the record's judges, in doctor's order.
var recordJudges = []recordJudge{
	{"host-runtime", func(r docker.Record, _ limits.Bytes, runtime string) (string, string) {
		return "Runtime " + r.Runtime, unless(r.Runtime == runtime, fmt.Sprintf("the engine ran the container under %q, not %q", r.Runtime, runtime))
	}},
	{"host-swap", func(r docker.Record, memory limits.Bytes, _ string) (string, string) {
		seen := fmt.Sprintf("Memory %d MemorySwap %d", r.Memory, r.MemorySwap)
		return seen, unless(r.Memory == int64(memory) && r.MemorySwap == int64(memory),
			fmt.Sprintf("the engine's record allows swap or another limit (want Memory and MemorySwap %d)", int64(memory)))
	}},
	{"host-pids", func(r docker.Record, _ limits.Bytes, _ string) (string, string) {
		seen := fmt.Sprintf("PidsLimit %d", r.PidsLimit)
		return seen, unless(r.PidsLimit == limits.GVisorHostPIDs, fmt.Sprintf("the host's task limit is %d, want %d", r.PidsLimit, limits.GVisorHostPIDs))
	}},
}
