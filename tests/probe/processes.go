package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// forkbomb forks with the raw system call (clone, as fork: arm64 has no
// fork) until the kernel refuses. Each child only ever waits for a signal
// (pselect6, as pause(2) would: arm64 has no pause), so it runs no Go code
// that could touch the runtime state it was copied from.
func forkbomb([]string) report {
	runtime.LockOSThread()
	var pids []int
	var ferr syscall.Errno
	start := time.Now()
	for len(pids) < 10000 && time.Since(start) < 5*time.Second {
		pid, _, e := syscall.RawSyscall(unix.SYS_CLONE, uintptr(syscall.SIGCHLD), 0, 0) // fork: arm64 has only clone
		if e != 0 {
			ferr = e
			break
		}
		if pid == 0 {
			for {
				syscall.RawSyscall6(unix.SYS_PSELECT6, 0, 0, 0, 0, 0, 0) // pause: arm64 has none
			}
		}
		pids = append(pids, int(pid))
	}
	current := ""
	for _, p := range []string{"/sys/fs/cgroup/pids/pids.current", "/sys/fs/cgroup/pids.current"} {
		if b, err := os.ReadFile(p); err == nil {
			current = strings.TrimSpace(string(b))
		}
	}
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGKILL)
		var ws syscall.WaitStatus
		syscall.Wait4(pid, &ws, 0, nil)
	}
	return report{"forked": len(pids), "error": errnoName(ferr), "pids_current": current}
}

func nofile([]string) report {
	var files []*os.File
	var err error
	for len(files) < 10000 {
		var f *os.File
		if f, err = os.Open("/dev/null"); err != nil {
			break
		}
		files = append(files, f)
	}
	last := -1
	if len(files) > 0 {
		last = int(files[len(files)-1].Fd())
	}
	for _, f := range files {
		f.Close()
	}
	return report{"opened": len(files), "highest_fd": last, "error": errno(err)}
}

// cpu keeps four goroutines busy for two seconds of wall time and reports
// the CPU time the process got: one CPU allows about two seconds.
func cpu([]string) report {
	runtime.GOMAXPROCS(4)
	stop := time.Now().Add(2 * time.Second)
	done := make(chan int)
	for i := 0; i < 4; i++ {
		go func() {
			n := 0
			for time.Now().Before(stop) {
				n++
			}
			done <- n
		}()
	}
	for i := 0; i < 4; i++ {
		<-done
	}
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	used := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return report{"cpu_seconds": used.Seconds(), "wall_seconds": 2.0}
}

func sleep([]string) report {
	time.Sleep(time.Hour)
	return report{}
}

// alloc allocates and touches memory in 4 MiB steps until something stops
// it; it reports only if it is never stopped.
func alloc([]string) report {
	var keep [][]byte
	for i := 0; i < 4096; i++ {
		b := make([]byte, 4<<20)
		for j := 0; j < len(b); j += 4096 {
			b[j] = 1
		}
		keep = append(keep, b)
	}
	return report{"allocated_mib": len(keep) * 4}
}

// oomadj reports the OOM killer's adjustment of the probe and of PID 1.
func oomadj([]string) report {
	r := report{}
	for _, p := range []string{"/proc/self/oom_score_adj", "/proc/1/oom_score_adj"} {
		b, err := os.ReadFile(p)
		r[p] = strings.TrimSpace(string(b)) + errno(err)
	}
	if b, err := os.ReadFile("/proc/1/status"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "VmLck:") {
				r["pid1_vmlck"] = strings.TrimSpace(strings.TrimPrefix(l, "VmLck:"))
			}
		}
	}
	return r
}

// decoy finds the runner's decoy (a process other than this one and
// PID 1 with oom_score_adj 1000) and samples its state and CPU time
// twice, 500 ms apart: a decoy that waits is asleep and uses none.
func decoy([]string) report {
	self := strconv.Itoa(os.Getpid())
	sample := func() map[string][]string {
		found := map[string][]string{}
		dirs, _ := filepath.Glob("/proc/[0-9]*")
		for _, d := range dirs {
			pid := filepath.Base(d)
			adj, err := os.ReadFile(d + "/oom_score_adj")
			if pid == self || pid == "1" || err != nil || strings.TrimSpace(string(adj)) != "1000" {
				continue
			}
			stat, err := os.ReadFile(d + "/stat")
			if err != nil {
				continue
			}
			// After the command name in parentheses: state is the 1st
			// field, utime and stime the 12th and 13th.
			f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
			found[pid] = []string{f[0], f[11], f[12]}
		}
		return found
	}
	first := sample()
	time.Sleep(500 * time.Millisecond)
	second := sample()
	r := report{"decoys": len(second)}
	for pid, s := range second {
		if s0, ok := first[pid]; ok {
			ticks := func(s []string) int {
				u, _ := strconv.Atoi(s[1])
				k, _ := strconv.Atoi(s[2])
				return u + k
			}
			r["state"] = s[0]
			r["cpu_ticks"] = ticks(s) - ticks(s0)
		}
	}
	return r
}

// spawn times starting the runner, as a whole and as its Starlark child,
// from inside the container (the image's filesystem, its CPU quota).
func spawn([]string) report {
	r := report{}
	for _, tc := range []struct {
		name  string
		args  []string
		input string
	}{
		{"runner_ms", []string{"--timeout", "10s"}, `{"source":"1+2"}`},
		{"child_ms", []string{"--starlark-child", "10s"}, "1+2"},
	} {
		var ds []float64
		for i := 0; i < 21; i++ {
			cmd := exec.Command("/runner", tc.args...)
			cmd.Stdin = strings.NewReader(tc.input)
			start := time.Now()
			out, err := cmd.Output()
			if err != nil {
				r[tc.name] = err.Error() + string(out)
				break
			}
			ds = append(ds, float64(time.Since(start).Microseconds())/1000)
		}
		if len(ds) > 0 {
			sort.Float64s(ds)
			r[tc.name] = ds[len(ds)/2]
		}
	}
	return r
}
