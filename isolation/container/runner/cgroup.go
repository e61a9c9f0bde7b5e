package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// cgroupRoot is where a container sees its own cgroup.
const cgroupRoot = "/sys/fs/cgroup"

// cgroup is the cgroup the runner is in, v1 or v2, read from root
// (/sys/fs/cgroup in the container; recorded files in tests). Every file
// of it is read through a cgroupFile and every number parsed by parseInt.
type cgroup struct {
	root string
	v2   bool
}

func newCgroup(root string) cgroup {
	_, err := os.Stat(filepath.Join(root, "cgroup.controllers"))
	return cgroup{root: root, v2: err == nil}
}

// file is a file of the memory controller: v1's name (under memory/) or
// v2's.
func (c cgroup) file(v1, v2 string) string {
	if c.v2 {
		return filepath.Join(c.root, v2)
	}
	return filepath.Join(c.root, "memory", v1)
}

// cpuPath is the cgroup's CPU counter. On v1 the cpuacct controller may be
// mounted alone or with cpu (cpu,cpuacct); docker links cpuacct either way.
func (c cgroup) cpuPath() string {
	if c.v2 {
		return filepath.Join(c.root, "cpu.stat")
	}
	return filepath.Join(c.root, "cpuacct", "cpuacct.usage")
}

// path is the file rel under the root, as its version names it (v1
// names its controller's directory).
func (c cgroup) path(rel string) string { return filepath.Join(c.root, rel) }

// cgroupFile is a cgroup file read again and again, at offset 0 into a
// fixed buffer, without allocating: near the memory limit every new page
// the runner needs could be the one the kernel takes it for.
type cgroupFile struct {
	f   *os.File
	buf []byte
}

// smallFile is the buffer of a file of one value or a few counters.
const smallFile = 1 << 10

func openCgroupFile(path string, size int) (*cgroupFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &cgroupFile{f: f, buf: make([]byte, size)}, nil
}

func (c *cgroupFile) close() { c.f.Close() }

// read returns the file's contents as the kernel shows them now (an
// empty file is empty, not an error).
func (c *cgroupFile) read() ([]byte, error) {
	n, err := c.f.ReadAt(c.buf, 0)
	if err != nil && err != io.EOF && n == 0 {
		return nil, err
	}
	return c.buf[:n], nil
}

// number reads a file of one number (memory.usage_in_bytes,
// memory.current, cpuacct.usage, memory.peak).
func (c *cgroupFile) number() (int64, error) {
	b, err := c.read()
	if err != nil {
		return 0, err
	}
	n, err := parseInt(b)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", c.f.Name(), err)
	}
	return n, nil
}

// counter reads the number of key in a file of "key value" lines
// (cpu.stat, memory.events, memory.oom_control).
func (c *cgroupFile) counter(key string) (int64, error) {
	b, err := c.read()
	if err != nil {
		return 0, err
	}
	for len(b) > 0 {
		var line []byte
		line, b = cutLine(b)
		if k, v, ok := bytes.Cut(line, space); ok && string(k) == key {
			return parseInt(v)
		}
	}
	return 0, fmt.Errorf("no %s counter in %s", key, c.f.Name())
}

var space = []byte(" ")

// readOnce reads a small cgroup file whole, once.
func readOnce(path string) ([]byte, error) {
	f, err := openCgroupFile(path, smallFile)
	if err != nil {
		return nil, err
	}
	defer f.close()
	return f.read()
}

// numberOnce reads a small file of one number, once.
func numberOnce(path string) (int64, error) {
	f, err := openCgroupFile(path, smallFile)
	if err != nil {
		return 0, err
	}
	defer f.close()
	return f.number()
}

// counterOnce reads key of a small file of counters, once.
func counterOnce(path, key string) (int64, error) {
	f, err := openCgroupFile(path, smallFile)
	if err != nil {
		return 0, err
	}
	defer f.close()
	return f.counter(key)
}

// cutLine splits b at its first newline: the line before it and the rest
// after it (nil at the end).
func cutLine(b []byte) (line, rest []byte) {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i], b[i+1:]
	}
	return b, nil
}

// errNotNumber is parseInt's refusal, allocated once: the guard parses
// near the memory limit.
var errNotNumber = errors.New("not a decimal integer")

// parseInt is the runner's one integer parser, of what cgroup and /proc
// files show: an optional minus sign and decimal digits, within int64,
// with the whitespace around them (a file's newline) ignored.
func parseInt(b []byte) (int64, error) {
	b = bytes.TrimSpace(b)
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, errNotNumber
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' || n > (1<<63-1-int64(c-'0'))/10 {
			return 0, errNotNumber
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		return -n, nil
	}
	return n, nil
}

// oomKills returns the cgroup's own count of processes the OOM killer
// killed (v1 memory.oom_control, v2 memory.events).
func (c cgroup) oomKills() (int64, error) {
	return counterOnce(c.file("memory.oom_control", "memory.events"), "oom_kill")
}

// memoryPeak returns the highest memory the cgroup has used: v1
// memory.max_usage_in_bytes, v2 memory.peak (Linux 5.19 and later; an
// older kernel has none, and the peak is then not reported).
func (c cgroup) memoryPeak() (int64, error) {
	return numberOnce(c.file("memory.max_usage_in_bytes", "memory.peak"))
}
