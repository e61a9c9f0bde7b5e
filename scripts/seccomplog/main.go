// Command seccomplog measures which syscalls a workload needs beyond the
// policy's seccomp table: it runs a command with a `docker` on PATH that
// gives every `docker run` the logging profile (seccomp.LogProfile: the
// table's rules, and everything else allowed and logged), reads the
// kernel's seccomp log from /dev/kmsg meanwhile, and prints each syscall
// that was logged, how often, and by which programs.
//
// It needs root: it reads /dev/kmsg and, while the command runs, turns off
// the printk rate limit (kernel.printk_ratelimit 0), which would otherwise
// keep 10 lines in 5 s; the old value is restored on exit.
//
// Usage: go run ./scripts/seccomplog -- COMMAND [ARG...]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/synapse-lang/synapse-isolation/limits/seccomp"
)

const ratelimit = "/proc/sys/kernel/printk_ratelimit"

var (
	unistd = flag.String("unistd", "/usr/include/x86_64-linux-gnu/asm/unistd_64.h", "the kernel header that numbers the syscalls")
	record = regexp.MustCompile(`type=1326 .*comm="([^"]*)".* syscall=(\d+) `)
)

func main() {
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: seccomplog -- COMMAND [ARG...]")
		os.Exit(2)
	}
	if err := run(flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "seccomplog:", err)
		os.Exit(1)
	}
}

func run(command []string) error {
	// Without the header the syscalls are reported by number.
	names, err := syscallNames(*unistd)
	if err != nil {
		fmt.Fprintln(os.Stderr, "seccomplog: naming syscalls by number:", err)
	}
	dir, err := os.MkdirTemp("", "seccomplog")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := prepare(dir); err != nil {
		return err
	}
	restore, err := liftRateLimit()
	if err != nil {
		return err
	}
	defer restore()
	klog, err := openKmsg()
	if err != nil {
		return err
	}
	defer klog.close()

	cmd := exec.Command(command[0], command[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stderr, os.Stderr
	cmd.Env = append(os.Environ(), "PATH="+filepath.Join(dir, "bin")+":"+os.Getenv("PATH"))
	if err := cmd.Start(); err != nil {
		return err
	}
	cmdErr := waitForwarding(cmd, klog.drain)
	// The kernel's last lines may still be on their way.
	time.Sleep(500 * time.Millisecond)
	klog.drain()
	printReport(names, klog, cmdErr)
	return nil
}

// prepare writes the logging profile into dir and the docker wrapper that
// passes it into dir/bin.
func prepare(dir string) error {
	profile := filepath.Join(dir, "log.json")
	if err := os.WriteFile(profile, seccomp.LogProfile(), 0o644); err != nil {
		return err
	}
	return wrapDocker(dir, profile)
}

// liftRateLimit turns off the printk rate limit, so that no seccomp line
// is dropped, and returns what puts the old value back.
func liftRateLimit() (restore func(), err error) {
	old, err := os.ReadFile(ratelimit)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(ratelimit, []byte("0\n"), 0o644); err != nil {
		return nil, fmt.Errorf("turning off the printk rate limit: %w", err)
	}
	return func() { os.WriteFile(ratelimit, old, 0o644) }, nil
}

// waitForwarding waits for the started cmd, passing it this process's
// interrupts and calling meanwhile every 20 ms, and returns how it ended.
func waitForwarding(cmd *exec.Cmd, meanwhile func()) error {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// An interrupt goes to the command; this process lives on to restore
	// the rate limit.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return err
		case sig := <-signals:
			cmd.Process.Signal(sig)
		case <-tick.C:
			meanwhile()
		}
	}
}

// printReport prints each logged syscall, by name, with how often it was
// logged and by which programs.
func printReport(names map[int]string, klog *kmsg, cmdErr error) {
	nrs := make([]int, 0, len(klog.seen))
	for nr := range klog.seen {
		nrs = append(nrs, nr)
	}
	sort.Slice(nrs, func(i, j int) bool { return names[nrs[i]] < names[nrs[j]] })
	fmt.Printf("%d syscalls outside the table (command: %v; ring buffer overruns: %d)\n", len(nrs), cmdErr, klog.lost)
	for _, nr := range nrs {
		comms := make([]string, 0, len(klog.seen[nr].comms))
		for c := range klog.seen[nr].comms {
			comms = append(comms, c)
		}
		sort.Strings(comms)
		name := names[nr]
		if name == "" {
			name = "#" + strconv.Itoa(nr)
		}
		fmt.Printf("%-24s %8d  %s\n", name, klog.seen[nr].n, strings.Join(comms, ","))
	}
}

// wrapDocker puts a `docker` first on PATH that runs the real one with the
// logging profile: it replaces the value of a seccomp= option, or adds one
// right after `run` when the argv has none.
func wrapDocker(dir, profile string) error {
	real, err := exec.LookPath("docker")
	if err != nil {
		return err
	}
	script := `#!/bin/sh
added=false
for a; do
  shift
  case "$a" in
  seccomp=*) a="seccomp=` + profile + `"; added=true ;;
  esac
  set -- "$@" "$a"
done
if ! $added; then
  for a; do
    shift
    set -- "$@" "$a"
    if [ "$a" = run ] && ! $added; then set -- "$@" --security-opt "seccomp=` + profile + `"; added=true; fi
  done
fi
exec ` + real + ` "$@"
`
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "bin", "docker"), []byte(script), 0o755)
}

// syscallNames reads "#define __NR_name number" lines.
func syscallNames(header string) (map[int]string, error) {
	f, err := os.Open(header)
	if err != nil {
		return nil, fmt.Errorf("%w (Debian's linux-libc-dev has it)", err)
	}
	defer f.Close()
	out := map[int]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var name string
		var nr int
		if _, err := fmt.Sscanf(sc.Text(), "#define __NR_%s %d", &name, &nr); err == nil {
			out[nr] = name
		}
	}
	return out, sc.Err()
}
