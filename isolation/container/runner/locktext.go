package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// lockText locks the runner's own file-backed pages (its code and
// read-only data) in memory. They are the only pages of the runner the
// kernel can reclaim when a program fills the memory cgroup (there is no
// swap for anonymous pages), and a runner that has to fault its code back
// in while the cgroup is full either thrashes or triggers the OOM killer
// itself, right after the program's kill and before its memory is freed,
// and dies in its place (seen here, 3 of 30 exec-mode OOMs at 64m). The
// binary is a few MiB, within the 8 MiB RLIMIT_MEMLOCK containers get by
// default. It is best effort: where locking fails, an OOM still ends the
// run, with the daemon's event as the evidence.
func lockText() error {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return err
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return err
	}
	defer f.Close()
	var firstErr error
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// start-end perms offset dev inode path
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[5] != exe || strings.Contains(fields[1], "w") {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if !ok || err1 != nil || err2 != nil || end <= start {
			continue
		}
		if _, _, e := syscall.Syscall(syscall.SYS_MLOCK, uintptr(start), uintptr(end-start), 0); e != 0 && firstErr == nil {
			firstErr = e
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return firstErr
}
