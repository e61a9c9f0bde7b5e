// Command probe is the hostile program of the boundary suite. Run through
// the runner's --exec mode, it reads one check name (and arguments) from
// the source's file, which exec mode names last on its command line,
// really attempts to cross that boundary with system calls, and
// prints what happened as one JSON object. As an image's entrypoint with
// the argument "hostile", it plays a lying runner instead.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"time"
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
