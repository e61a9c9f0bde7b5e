// Command probe is the hostile program of the boundary suite. Run through
// the runner's --exec mode, it reads one check name (and arguments) from
// the source's file, which exec mode names last on its command line,
// really attempts to cross that boundary with system calls, and
// prints what happened as one JSON object. As an image's entrypoint with
// the argument "hostile", it plays a lying runner instead.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
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

// report is what every check prints: observations by name.
type report map[string]any

func errno(err error) string {
	var e syscall.Errno
	if errors.As(err, &e) {
		return errnoName(e)
	}
	if err == nil {
		return ""
	}
	return err.Error()
}

func errnoName(e syscall.Errno) string {
	for name, v := range map[string]syscall.Errno{
		"EROFS": syscall.EROFS, "EACCES": syscall.EACCES, "EPERM": syscall.EPERM, "ENOSPC": syscall.ENOSPC,
		"EAGAIN": syscall.EAGAIN, "EMFILE": syscall.EMFILE, "ENOENT": syscall.ENOENT, "ENETUNREACH": syscall.ENETUNREACH,
		"ENOMEM": syscall.ENOMEM, "EDQUOT": syscall.EDQUOT,
	} {
		if e == v {
			return name
		}
	}
	return fmt.Sprintf("errno %d", int(e))
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "hostile" {
		hostile()
		return
	}
	// The check is the run's source: exec mode names its file last on the
	// command line (stdin is the program's own); stdin without one.
	src := io.Reader(os.Stdin)
	if len(os.Args) > 1 {
		if f, err := os.Open(os.Args[len(os.Args)-1]); err == nil {
			defer f.Close()
			src = f
		}
	}
	in, _ := io.ReadAll(io.LimitReader(src, 1<<16))
	f := strings.Fields(string(in))
	if len(f) == 0 {
		fmt.Println(`{"error":"no check named"}`)
		os.Exit(2)
	}
	checks := map[string]func([]string) report{
		"rootfs": rootfs, "tmp": tmp, "net": network, "privs": privs, "env": env, "socket": socket, "shm": shm,
		"cgroup": cgroup, "limits": rlimits, "forkbomb": forkbomb, "nofile": nofile, "cpu": cpu, "sleep": sleep,
		"alloc": alloc, "oomadj": oomadj, "spawn": spawn, "syscalls": syscalls, "decoy": decoy,
	}
	check, ok := checks[f[0]]
	if !ok {
		fmt.Printf(`{"error":"unknown check %q"}`+"\n", f[0])
		os.Exit(2)
	}
	b, _ := json.Marshal(check(f[1:]))
	fmt.Println(string(b))
}

func rootfs([]string) report {
	r := report{}
	for _, p := range []string{"/probe-write", "/etc-probe", "/runner"} {
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE, 0o644)
		if err == nil {
			f.Close()
		}
		r[p] = errno(err)
	}
	r["mkdir"] = errno(os.Mkdir("/probe-dir", 0o755))
	return r
}

func tmp([]string) report {
	r := report{}
	r["write"] = errno(os.WriteFile("/tmp/small", []byte("hello"), 0o644))
	self, err := os.ReadFile("/probe")
	if err == nil {
		err = os.WriteFile("/tmp/probe-copy", self, 0o755)
	}
	r["copy"] = errno(err)
	r["exec"] = errno(exec.Command("/tmp/probe-copy").Run())
	os.Remove("/tmp/probe-copy")
	// Fill /tmp past its 32 MiB.
	f, err := os.Create("/tmp/fill")
	var written int64
	if err == nil {
		chunk := make([]byte, 1<<20)
		for written < 40<<20 {
			n, werr := f.Write(chunk)
			written += int64(n)
			if werr != nil {
				err = werr
				break
			}
		}
		f.Close()
		os.Remove("/tmp/fill")
	}
	r["fill_error"] = errno(err)
	r["fill_bytes"] = written
	return r
}

func network(args []string) report {
	r := report{}
	ifs, err := net.Interfaces()
	var names []string
	for _, i := range ifs {
		names = append(names, i.Name)
	}
	r["interfaces"], r["interfaces_error"] = names, errno(err)
	for _, addr := range append([]string{"1.1.1.1:443"}, args...) {
		c, err := net.DialTimeout("tcp", addr, 3*time.Second)
		if err == nil {
			c.Close()
			r["connect "+addr] = "connected"
			continue
		}
		r["connect "+addr] = errno(err)
	}
	return r
}

func status() map[string]string {
	out := map[string]string{}
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok {
			out[k] = strings.TrimSpace(v)
		}
	}
	return out
}

func privs([]string) report {
	runtime.LockOSThread()
	r := report{"uid": os.Getuid(), "gid": os.Getgid(), "euid": os.Geteuid()}
	groups, _ := os.Getgroups()
	r["groups"] = groups
	_, _, e := syscall.RawSyscall(syscall.SYS_SETUID, 0, 0, 0)
	r["setuid0"] = errnoName(e)
	_, _, e = syscall.RawSyscall(syscall.SYS_SETGID, 0, 0, 0)
	r["setgid0"] = errnoName(e)
	st := status()
	for _, k := range []string{"CapEff", "CapPrm", "CapBnd", "NoNewPrivs", "Seccomp"} {
		r[k] = st[k]
	}
	return r
}

func env([]string) report { return report{"environ": os.Environ()} }

func socket([]string) report {
	r := report{}
	for _, p := range []string{"/var/run/docker.sock", "/run/docker.sock"} {
		_, err := os.Lstat(p)
		r[p] = errno(err)
		c, err := net.Dial("unix", p)
		if err == nil {
			c.Close()
			r["dial "+p] = "connected"
		} else {
			r["dial "+p] = errno(err)
		}
	}
	return r
}

func shm([]string) report {
	err := os.WriteFile("/dev/shm/probe", []byte("x"), 0o644)
	return report{"write": errno(err)}
}

func cgroup([]string) report {
	r := report{}
	for _, p := range []string{
		"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.swap.max", "/sys/fs/cgroup/pids.max", "/sys/fs/cgroup/cpu.max",
		"/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.memsw.limit_in_bytes",
		"/sys/fs/cgroup/pids/pids.max", "/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "/sys/fs/cgroup/cpu/cpu.cfs_period_us",
	} {
		if b, err := os.ReadFile(p); err == nil {
			r[p] = strings.TrimSpace(string(b))
		}
	}
	return r
}

func rlimits([]string) report {
	b, err := os.ReadFile("/proc/self/limits")
	return report{"limits": string(b), "error": errno(err)}
}

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
