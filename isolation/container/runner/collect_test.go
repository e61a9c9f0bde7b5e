package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/limits"
)

// TestCollectAsAnAttackerWouldTryIt: only regular files come back, whole;
// a link, a FIFO (no hang), a directory, a file past the response's room,
// a name no file of a request could have, matches past the 32nd: each an
// error entry, never read; the source's own file never matches.
func TestCollectAsAnAttackerWouldTryIt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	blob := []byte(strings.Repeat("\x00\x01\xfe\xff", 1000))
	write := func(name string, b []byte) { assert.NilError(t, os.WriteFile(filepath.Join(dir, name), b, 0o600)) }
	write("blob.bin", blob)
	write("main", []byte("print(1)"))
	write("big.png", make([]byte, 2<<20))
	write("bad\nname.png", []byte("x"))
	assert.NilError(t, os.Symlink("/etc/passwd", filepath.Join(dir, "passwd.png")))
	assert.NilError(t, syscall.Mkfifo(filepath.Join(dir, "fifo.png"), 0o600))
	assert.NilError(t, os.Mkdir(filepath.Join(dir, "dir.png"), 0o700))
	for i := range 40 {
		write(fmt.Sprintf("z%02d.csv", i), []byte{byte(i)})
	}

	got := collect(dir, []string{"blob.bin", "*.png", "*.csv", "main"}, limits.MaxResponseBytes-4096)
	sum := sha256.Sum256(blob)
	assert.Check(t, is.DeepEqual(got["blob.bin"].Data, blob))
	assert.Check(t, is.Equal(got["blob.bin"].SHA256, hex.EncodeToString(sum[:])))
	assert.Check(t, is.Equal(got["blob.bin"].Bytes, int64(len(blob))))
	for name, want := range map[string]string{
		"passwd.png":    "a symbolic link: not followed",
		"fifo.png":      "not a regular file (a FIFO): not read",
		"dir.png":       "not a regular file (a directory): not read",
		"big.png":       "2097152 bytes: more than the response has room for",
		"bad\nname.png": `not returned: file name "bad\nname.png": must not hold a NUL or another control character`,
	} {
		assert.Check(t, strings.HasPrefix(got[name].Error, want), "%q: %+v", name, got[name])
		assert.Check(t, got[name].Data == nil, name)
	}
	_, hasMain := got["main"]
	assert.Check(t, !hasMain, "the source is not the program's to return")
	// The first 32 matches by name are taken (six above, then z00 to
	// z25); z26 to z39 are named as not returned.
	returned, beyond := 0, 0
	for name, f := range got {
		switch {
		case f.Error == "":
			returned++
		case strings.Contains(f.Error, "46 files match, at most 32 are returned"):
			beyond++
			assert.Check(t, name >= "z26.csv", name)
		}
	}
	assert.Check(t, is.Equal(returned, 1+26))
	assert.Check(t, is.Equal(beyond, 14))
}

// TestCollectBoundsTheResponse: files that together pass the room left
// are returned while they fit; the rest are error entries, never cut.
func TestCollectBoundsTheResponse(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, n := range []string{"a", "b", "c"} {
		assert.NilError(t, os.WriteFile(filepath.Join(dir, n+".dat"), make([]byte, 300<<10), 0o600))
	}
	got := collect(dir, []string{"*.dat"}, 900<<10)
	assert.Check(t, got["a.dat"].Error == "" && got["b.dat"].Error == "", "%v %v", got["a.dat"].Error, got["b.dat"].Error)
	assert.Check(t, is.Contains(got["c.dat"].Error, "more than the response has room for"))
	assert.Check(t, got["c.dat"].Data == nil)

	none := collect(dir, []string{"*.png"}, 1<<20)
	assert.Check(t, is.Len(none, 0))
}

// TestCollectStaysWithinItsRoom: the entries that return nothing take
// room too (a long, escaped name, its reason): a program that fills what
// is left of the response with one file and names 60 FIFOs to be listed
// beside it must not push the response past its bound, which would make
// its own doing the sandbox's failure.
func TestCollectStaysWithinItsRoom(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const room = 512 << 10
	long := strings.Repeat("\x01", 200) // each byte six in JSON: \u0001
	for i := range 60 {
		assert.NilError(t, syscall.Mkfifo(filepath.Join(dir, fmt.Sprintf("a%02d%s.bin", i, long)), 0o600))
	}
	// The largest file whose entry alone fits the room, first by name.
	size := room * 3 / 4
	for base64Len(size)+len("a.bin")+256 > room {
		size -= 3
	}
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "a.bin"), make([]byte, size), 0o600))
	got := collect(dir, []string{"*.bin"}, room)
	b, err := json.Marshal(got)
	assert.NilError(t, err)
	assert.Check(t, len(b) <= room, "the files take %d bytes of a room of %d", len(b), room)
}

func base64Len(n int) int { return (n + 2) / 3 * 4 }
