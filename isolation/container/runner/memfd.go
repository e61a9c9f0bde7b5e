package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// programFD is the descriptor the trampoline receives a compiled
// program on (the first extra file; statusFD is 3), and the path it is
// given for it: no path exec.LookPath returns (those hold a slash), so
// it can name nothing else.
const (
	programFD   = 4
	programPath = "fd:4"
)

// sealedProgram copies the compiled program at path into a sealed memfd
// the trampoline execs (execveat with AT_EMPTY_PATH). /tmp is noexec, so
// nothing the compiler writes there can run by its path, and nothing is
// made executable: the memfd lives on the kernel's internal mount, has no
// path the program can write, and is sealed (no write, grow or shrink
// through any descriptor) before it runs. What the host's
// vm.memfd_noexec does to it: 0 (the default), memfds are executable and
// MFD_EXEC only says so; 1, a memfd made without MFD_EXEC is not, so the
// flag is given; 2, MFD_EXEC is refused (EACCES) and a compiled program
// cannot run here at all: the error says so. Before Linux 6.3 the flag
// does not exist (EINVAL) and every memfd is executable: made without it.
func sealedProgram(path string) (*os.File, error) {
	src, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("the compiled program: %w", err)
	}
	defer src.Close()
	st, err := src.Stat()
	switch {
	case err != nil:
		return nil, fmt.Errorf("the compiled program: %w", err)
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("the compiled program %s is not a regular file", path)
	case st.Size() > limits.TmpBytes:
		return nil, fmt.Errorf("the compiled program %s is %d bytes, more than /tmp holds", path, st.Size())
	}
	fd, err := unix.MemfdCreate("program", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING|unix.MFD_EXEC)
	if errors.Is(err, unix.EINVAL) {
		fd, err = unix.MemfdCreate("program", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	}
	if errors.Is(err, unix.EACCES) {
		return nil, errors.New("the host's vm.memfd_noexec is 2, which forbids executable memfds: a compiled program runs only from one here (/tmp is noexec)")
	}
	if err != nil {
		return nil, fmt.Errorf("memfd_create: %w", err)
	}
	f := os.NewFile(uintptr(fd), "program")
	if _, err := io.Copy(f, io.LimitReader(src, limits.TmpBytes)); err != nil {
		f.Close()
		return nil, fmt.Errorf("copying the compiled program: %w", err)
	}
	seals := unix.F_SEAL_SEAL | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE
	if _, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, seals); err != nil {
		f.Close()
		return nil, fmt.Errorf("sealing the compiled program: %w", err)
	}
	return f, nil
}

// execFD execs the program open on fd (execveat with AT_EMPTY_PATH); it
// returns only if that failed. The descriptor is close-on-exec first, so
// the program does not hold its own image open: an ELF binary needs no
// path to itself once loaded.
func execFD(fd int, argv, env []string) error {
	syscall.CloseOnExec(fd)
	empty, err := syscall.BytePtrFromString("")
	if err != nil {
		return err
	}
	argvp, err := cStrings(argv)
	if err != nil {
		return err
	}
	envp, err := cStrings(env)
	if err != nil {
		return err
	}
	_, _, errno := syscall.RawSyscall6(unix.SYS_EXECVEAT, uintptr(fd), uintptr(unsafe.Pointer(empty)),
		uintptr(unsafe.Pointer(&argvp[0])), uintptr(unsafe.Pointer(&envp[0])), unix.AT_EMPTY_PATH, 0)
	return errno
}

// cStrings is ss as a NULL-terminated array of C strings.
func cStrings(ss []string) ([]*byte, error) {
	out := make([]*byte, len(ss)+1)
	for i, s := range ss {
		p, err := syscall.BytePtrFromString(s)
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}
