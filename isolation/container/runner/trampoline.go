package main

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// execArg starts the runner as the exec trampoline: a fresh exec of the
// runner that makes itself the OOM killer's first choice and then execs
// the operator's interpreter in its own place. Only the runner passes it,
// to itself: runner --exec-program PATH ARGV0 ARGS..., where a PATH of
// programPath is the compiled program on programFD (sealedProgram).
const execArg = "--exec-program"

// statusFD is where the trampoline reports an exec that failed; its
// close-on-exec end tells the runner the exec succeeded.
const statusFD = 3

// isTrampoline reports whether this process is the exec trampoline.
func isTrampoline() bool { return len(os.Args) > 3 && os.Args[1] == execArg }

// raiseOOMScore makes this process the OOM killer's first choice. A
// process can write its own oom_score_adj only while it is dumpable (the
// file belongs to root otherwise): so only a fresh exec, before protect,
// and never the runner, whose own score stays 0.
func raiseOOMScore() {
	_ = os.WriteFile("/proc/self/oom_score_adj", []byte("1000"), 0)
}

// trampoline becomes the interpreter: it raises its OOM score, restores
// every signal to its default (the runner ignores them, and an ignored
// signal stays ignored across exec), and execs. It returns only if the
// exec failed, with the error written to statusFD.
func trampoline(path string, argv []string) int {
	raiseOOMScore()
	var dfl [4]uint64 // struct sigaction with SIG_DFL, no flags, empty mask, on every architecture
	for s := uintptr(1); s <= 64; s++ {
		if s != uintptr(syscall.SIGKILL) && s != uintptr(syscall.SIGSTOP) {
			syscall.RawSyscall6(unix.SYS_RT_SIGACTION, s, uintptr(unsafe.Pointer(&dfl)), 0, 8, 0, 0)
		}
	}
	syscall.CloseOnExec(statusFD)
	var err error
	if path == programPath {
		err = execFD(programFD, argv, os.Environ())
	} else {
		err = syscall.Exec(path, argv, os.Environ())
	}
	f := os.NewFile(statusFD, "status")
	fmt.Fprintf(f, "exec %s: %v", path, err)
	return 127
}
