package main

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// collectBound is collection's own time bound: every process of the
// program is gone by then, so it reads a quiet directory; a directory of
// many thousands of names still ends in time.
const collectBound = 2 * time.Second

// listedBeyond is how many matches past protocol.MaxCollect are named as
// not returned; past them a count says how many more there were.
const listedBeyond = protocol.MaxCollect

// sha256Hex stands for any SHA-256 in hex, for an entry's size.
var sha256Hex = strings.Repeat("0", 2*sha256.Size)

// collect returns the files of dir whose names match patterns, once the
// program and every process it started are gone: each regular file whole
// while it fits room (bytes of the response left for files), else an
// error entry saying why. Names are read from the directory, never taken
// from the program; each file is opened once, with O_NOFOLLOW and
// O_NONBLOCK, and judged by fstat on that descriptor: a symbolic link, a
// FIFO, a socket, a device or a directory is an error entry, never read,
// never waited on. At most protocol.MaxCollect files come back, the first
// by name.
func collect(dir string, patterns []string, room int) map[string]protocol.File {
	files := map[string]protocol.File{}
	deadline := time.Now().Add(collectBound)
	d, err := os.OpenFile(dir, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err != nil {
		for _, p := range patterns {
			files[p] = protocol.File{Error: "the working directory: " + err.Error()}
		}
		return files
	}
	defer d.Close()
	names, more, complete := matching(d, patterns, deadline)
	// Every entry takes room, one that returns nothing too (its name,
	// escaped, and its reason): those known now are charged first, so
	// the files read after them fit what is left.
	take := func(key string, f protocol.File) {
		files[key] = f
		room -= entrySize(key, f, len(f.Data))
	}
	for i := protocol.MaxCollect; i < len(names); i++ {
		msg := fmt.Sprintf("not returned: %d files match, at most %d are returned", len(names)+more, protocol.MaxCollect)
		if i == len(names)-1 && more > 0 {
			msg += fmt.Sprintf(" (%d more matches not listed)", more)
		}
		take(key(names[i]), protocol.File{Error: msg})
	}
	if !complete {
		for _, p := range patterns {
			take(p, protocol.File{Error: fmt.Sprintf("collection reached its time bound of %s before the whole directory was read", collectBound)})
		}
	}
	// Room for a reason is kept back for each file still to read, so any
	// of them can be named as not returned.
	read := names[:min(len(names), protocol.MaxCollect)]
	held := 0
	for _, name := range read {
		held += reasonSize(name)
	}
	for _, name := range read {
		held -= reasonSize(name)
		f := protocol.File{Error: fmt.Sprintf("not returned: collection reached its time bound of %s", collectBound)}
		if time.Now().Before(deadline) {
			f = readCollected(int(d.Fd()), name, room-held)
		}
		f.Error = cut(f.Error, maxReason)
		take(key(name), f)
	}
	return files
}

// maxReason bounds why a file was not returned (cut adds its "…").
const maxReason = 300

// reasonSize is the most an entry naming why name was not returned takes.
func reasonSize(name string) int {
	return entrySize(key(name), protocol.File{Error: strings.Repeat(`\`, maxReason) + "…"}, 0)
}

// key is a name as a key of the response's files: valid UTF-8.
func key(name string) string { return strings.ToValidUTF8(name, "\uFFFD") }

// entrySize is what an entry takes in the response's JSON, with dataLen
// bytes of base64 and the comma before it, as json.Marshal writes it.
func entrySize(name string, f protocol.File, dataLen int) int {
	f.Data = nil
	k, _ := json.Marshal(name)
	v, _ := json.Marshal(f)
	n := len(k) + len(":") + len(v) + len(",")
	if dataLen > 0 {
		n += len(`,"base64":""`) + base64.StdEncoding.EncodedLen(dataLen)
	}
	return n
}

// matching reads d's names a batch at a time, within deadline, and keeps
// the first protocol.MaxCollect+listedBeyond that match by name, counting
// the rest; complete is false when the deadline came first.
func matching(d *os.File, patterns []string, deadline time.Time) (names []string, more int, complete bool) {
	keep := protocol.MaxCollect + listedBeyond
	for time.Now().Before(deadline) {
		batch, err := d.Readdirnames(1024)
		for _, n := range batch {
			if !matches(n, patterns) {
				continue
			}
			i, _ := slices.BinarySearch(names, n)
			names = slices.Insert(names, i, n)
			if len(names) > keep {
				names, more = names[:keep], more+1
			}
		}
		if err != nil || len(batch) == 0 { // io.EOF: the whole directory read
			return names, more, true
		}
	}
	return names, more, false
}

// matches reports whether name matches one of patterns; the source's own
// file is never collected.
func matches(name string, patterns []string) bool {
	if name == protocol.ProgramName {
		return false
	}
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// readCollected reads one matched file by its name in the directory dirfd
// as collect says, within room.
func readCollected(dirfd int, name string, room int) protocol.File {
	if err := protocol.CheckName(name); err != nil {
		return protocol.File{Error: "not returned: " + err.Error()}
	}
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	switch {
	case errors.Is(err, unix.ELOOP):
		return protocol.File{Error: "a symbolic link: not followed"}
	case errors.Is(err, unix.ENXIO):
		return protocol.File{Error: "not a regular file (a socket)"}
	case err != nil:
		return protocol.File{Error: "open: " + err.Error()}
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return protocol.File{Error: "fstat: " + err.Error()}
	}
	if kind := st.Mode & unix.S_IFMT; kind != unix.S_IFREG {
		return protocol.File{Error: "not a regular file (" + kindName(kind) + "): not read"}
	}
	size := st.Size
	if need := entrySize(key(name), protocol.File{Bytes: size, SHA256: sha256Hex}, int(size)); need > room {
		return protocol.File{Error: fmt.Sprintf("%d bytes: more than the response has room for (%d bytes of its %d left, base64): not returned, never cut",
			size, max(room, 0), limits.MaxResponseBytes)}
	}
	data := make([]byte, size+1)
	n, err := io.ReadFull(f, data)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return protocol.File{Error: "read: " + err.Error()}
	}
	if int64(n) != size {
		return protocol.File{Error: fmt.Sprintf("changed while read: %d bytes, %d read", size, n)}
	}
	data = data[:n]
	sum := sha256.Sum256(data)
	return protocol.File{Bytes: size, SHA256: hex.EncodeToString(sum[:]), Data: data}
}

// kindName names a file type for an error entry.
func kindName(kind uint32) string {
	switch kind {
	case unix.S_IFIFO:
		return "a FIFO"
	case unix.S_IFDIR:
		return "a directory"
	case unix.S_IFSOCK:
		return "a socket"
	case unix.S_IFCHR, unix.S_IFBLK:
		return "a device"
	case unix.S_IFLNK:
		return "a symbolic link"
	}
	return "not a file"
}
