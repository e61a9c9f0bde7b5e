package attest

import (
	"fmt"
	"slices"
	"strings"
	"syscall"

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
