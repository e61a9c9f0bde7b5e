package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"syscall"
)

// kmsg reads the kernel's log from where it ended when opened and counts
// the seccomp records in it.
type kmsg struct {
	fd   int
	seen map[int]*count // by syscall number
	lost int            // ring buffer overruns
}

// count is how often one syscall was logged, and by which programs.
type count struct {
	n     int
	comms map[string]bool
}

func openKmsg() (*kmsg, error) {
	// A raw descriptor: through os.File a non-blocking read would wait in
	// the poller instead of returning EAGAIN at the end of the log.
	fd, err := syscall.Open("/dev/kmsg", syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("/dev/kmsg: %w", err)
	}
	if _, err := syscall.Seek(fd, 0, io.SeekEnd); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	return &kmsg{fd: fd, seen: map[int]*count{}}, nil
}

func (k *kmsg) close() { syscall.Close(k.fd) }

// drain counts the records logged since the last drain.
func (k *kmsg) drain() {
	buf := make([]byte, 8192)
	for {
		n, err := syscall.Read(k.fd, buf)
		if errors.Is(err, syscall.EPIPE) {
			k.lost++ // the ring buffer overtook the reader: lines were lost
			continue
		}
		if err != nil || n <= 0 {
			return // EAGAIN: nothing more for now
		}
		m := record.FindSubmatch(buf[:n])
		if m == nil {
			continue
		}
		nr, _ := strconv.Atoi(string(m[2]))
		c := k.seen[nr]
		if c == nil {
			c = &count{comms: map[string]bool{}}
			k.seen[nr] = c
		}
		c.n++
		c.comms[string(m[1])] = true
	}
}
