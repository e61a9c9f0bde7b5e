package main

import (
	"bytes"
	"fmt"
)

// The memory controller's files the guard reads on every poll: memory.stat
// and the whole usage, each opened once and read again and again.

// usage returns the cgroup's anonymous memory (what a program allocates;
// page cache is reclaimable and not counted) and its major page faults.
func (c cgroup) usage() (anon, majfaults int64, err error) {
	r, err := c.openStat()
	if err != nil {
		return 0, 0, err
	}
	defer r.close()
	return r.usage()
}

// statReader reads memory.stat again and again without allocating.
type statReader struct {
	file *cgroupFile
	v2   bool
}

func (c cgroup) openStat() (*statReader, error) {
	f, err := openCgroupFile(c.file("memory.stat", "memory.stat"), 16<<10)
	if err != nil {
		return nil, err
	}
	return &statReader{file: f, v2: c.v2}, nil
}

func (r *statReader) close() { r.file.close() }

// openUsage opens the cgroup's whole memory usage, one counter.
func (c cgroup) openUsage() (*cgroupFile, error) {
	return openCgroupFile(c.file("memory.usage_in_bytes", "memory.current"), 64)
}

// Keys of memory.stat: v2 names anonymous memory and major faults itself;
// v1 counts them for the whole hierarchy under total_*.
var (
	keyAnon      = []byte("anon")
	keyMajV2     = []byte("pgmajfault")
	keyRSS       = []byte("total_rss")
	keyRSSHuge   = []byte("total_rss_huge")
	keyMajV1     = []byte("total_pgmajfault")
	errStatShort = fmt.Errorf("memory.stat: anonymous memory or major faults missing")
)

func (r *statReader) usage() (anon, majfaults int64, err error) {
	b, err := r.file.read()
	if err != nil {
		return 0, 0, err
	}
	haveAnon, haveMaj := false, false
	for len(b) > 0 {
		var line []byte
		line, b = cutLine(b)
		// Only the few keys read are parsed: the file has dozens of lines,
		// read on every poll.
		k, v, _ := bytes.Cut(line, space)
		switch {
		case r.v2 && bytes.Equal(k, keyAnon):
			if n, err := parseInt(v); err == nil {
				anon, haveAnon = n, true
			}
		case r.v2 && bytes.Equal(k, keyMajV2), !r.v2 && bytes.Equal(k, keyMajV1):
			if n, err := parseInt(v); err == nil {
				majfaults, haveMaj = n, true
			}
		case !r.v2 && bytes.Equal(k, keyRSS):
			if n, err := parseInt(v); err == nil {
				anon, haveAnon = anon+n, true
			}
		case !r.v2 && bytes.Equal(k, keyRSSHuge):
			if n, err := parseInt(v); err == nil {
				anon += n
			}
		}
	}
	if !haveAnon || !haveMaj {
		return 0, 0, errStatShort
	}
	return anon, majfaults, nil
}
