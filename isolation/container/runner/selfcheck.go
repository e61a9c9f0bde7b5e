package main

import (
	"bufio"
	"errors"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol/hello"
)

// selfcheck reports what this process actually sees. It only reads and
// probes; a value it cannot read is left at -1 or empty and explained in
// Problems, so doctor fails that check instead of guessing. probe is the
// /proc probe, started before; cg the runner's cgroup; seccompBy who
// installed the filter in force (ensureFilter, at the runner's start).
func selfcheck(probe *procProbe, cg cgroup, seccompBy string) hello.Selfcheck {
	s := hello.Selfcheck{
		UID: os.Getuid(), GID: os.Getgid(), NoNewPrivs: -1, Seccomp: -1, NoNewPrivsPrctl: -1,
		MemoryMax: -1, SwapMax: -1, PidsMax: -1, NoFileSoft: -1, NoFileHard: -1, CoreSoft: -1, CoreHard: -1,
		NProcSoft: -1, NProcHard: -1, TmpBytes: -1, TmpMknod: -1, SeccompBy: seccompBy,
	}
	problem := func(what string, err error) { s.Problems = append(s.Problems, what+": "+err.Error()) }
	// First: which kernel decides what else is read (s.GVisor()).
	readKernel(&s, problem)
	s.Groups, _ = os.Getgroups()
	readStatus(&s, problem)
	readCgroup(cg, &s, problem)
	s.SyscallProbes = syscallProbes()
	s.ProcProbes = probe.result()
	readRlimits(&s)
	readFilesystems(&s, problem)
	s.TmpMknod = mknodErrno("/tmp")
	readExposure(&s, problem)
	return s
}

// readKernel reads uname's release and version: the host's kernel under
// runc, gVisor's sentry under runsc.
func readKernel(s *hello.Selfcheck, problem func(string, error)) {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		problem("uname", err)
		return
	}
	s.KernelRelease, s.KernelVersion = unix.ByteSliceToString(u.Release[:]), unix.ByteSliceToString(u.Version[:])
}

// readStatus reads the capability, no_new_privs and seccomp lines of
// /proc/self/status, and no_new_privs again by prctl: gVisor sets the bit
// but its status file has no NoNewPrivs line.
func readStatus(s *hello.Selfcheck, problem func(string, error)) {
	if n, err := unix.PrctlRetInt(unix.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0); err != nil {
		problem("prctl no_new_privs", err)
	} else {
		s.NoNewPrivsPrctl = n
	}
	status, err := readKeyed("/proc/self/status", ":")
	if err != nil {
		problem("status", err)
		return
	}
	s.CapEff = status["CapEff"]
	s.NoNewPrivs = int(intOr(status["NoNewPrivs"], -1))
	s.Seccomp = int(intOr(status["Seccomp"], -1))
}

// readRlimits reads the open-files, core-dump and process limits.
func readRlimits(s *hello.Selfcheck) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err == nil {
		s.NoFileSoft, s.NoFileHard = clampRlimit(rl.Cur), clampRlimit(rl.Max)
	}
	if err := syscall.Getrlimit(syscall.RLIMIT_CORE, &rl); err == nil {
		s.CoreSoft, s.CoreHard = clampRlimit(rl.Cur), clampRlimit(rl.Max)
	}
	if err := syscall.Getrlimit(unix.RLIMIT_NPROC, &rl); err == nil {
		s.NProcSoft, s.NProcHard = clampRlimit(rl.Cur), clampRlimit(rl.Max)
	}
}

// mknodErrno tries to make a character device (1:3, what /dev/null is)
// at a fresh name in dir and returns the errno it got, 0 if it was made
// (and then removed again). Without CAP_MKNOD the kernel refuses it with
// EPERM whatever the mount says; gVisor prints no nodev option for /tmp,
// so this shows by behaviour that no device can be made there.
func mknodErrno(dir string) int {
	path := filepath.Join(dir, ".selfcheck-mknod-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	err := unix.Mknod(path, unix.S_IFCHR|0o600, int(unix.Mkdev(1, 3)))
	if err == nil {
		_ = os.Remove(path)
		return 0
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return int(errno)
	}
	return -1
}

// readFilesystems reads /tmp's mount options, size and mode, and whether
// the root is read-only.
func readFilesystems(s *hello.Selfcheck, problem func(string, error)) {
	if mounts, err := os.ReadFile("/proc/self/mounts"); err != nil {
		problem("mounts", err)
	} else {
		for _, line := range strings.Split(string(mounts), "\n") {
			f := strings.Fields(line)
			if len(f) >= 4 && f[1] == "/tmp" {
				s.TmpOptions = f[3]
			}
		}
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs("/tmp", &st); err == nil {
		s.TmpBytes = int64(st.Blocks) * st.Bsize
	}
	s.TmpMode, s.TmpWritable = tmpAccess("/tmp", problem)
	if err := syscall.Statfs("/", &st); err == nil {
		s.RootReadOnly = st.Flags&0x1 != 0 // ST_RDONLY
	}
}

// readExposure reads what the container shows of the outside: network
// interfaces, a writable /dev/shm, a docker socket, environment keys.
func readExposure(s *hello.Selfcheck, problem func(string, error)) {
	if ifs, err := net.Interfaces(); err != nil {
		problem("interfaces", err)
	} else {
		for _, i := range ifs {
			s.Interfaces = append(s.Interfaces, i.Name)
		}
	}
	if f, err := os.CreateTemp("/dev/shm", "selfcheck"); err == nil {
		s.DevShmWritable = true
		f.Close()
		os.Remove(f.Name())
	}
	for _, p := range []string{"/var/run/docker.sock", "/run/docker.sock"} {
		if _, err := os.Lstat(p); err == nil {
			s.DockerSocket = true
		}
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		s.EnvKeys = append(s.EnvKeys, k)
	}
	sort.Strings(s.EnvKeys)
}

// tmpAccess reports dir's permission bits in octal and whether this
// process can create a file there: an image that carries its own /tmp
// (made by COPY or mkdir, 0755 root) keeps that mode over the tmpfs, and
// the sandbox user cannot write its only writable place.
func tmpAccess(dir string, problem func(string, error)) (mode string, writable bool) {
	var st syscall.Stat_t
	if err := syscall.Stat(dir, &st); err != nil {
		problem(dir, err)
		return "", false
	}
	mode = strconv.FormatUint(uint64(st.Mode&0o7777), 8)
	if f, err := os.CreateTemp(dir, "selfcheck"); err == nil {
		writable = true
		f.Close()
		os.Remove(f.Name())
	}
	return mode, writable
}

func clampRlimit(v uint64) int64 {
	if v > 1<<62 {
		return -1 // RLIM_INFINITY
	}
	return int64(v)
}

// intOr is the number s holds, or def.
func intOr(s string, def int64) int64 {
	n, err := parseInt([]byte(s))
	if err != nil {
		return def
	}
	return n
}

// readKeyed reads "Key<sep> value" lines.
func readKeyed(path, sep string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), sep); ok {
			out[k] = strings.TrimSpace(v)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("empty")
	}
	return out, sc.Err()
}
