package main

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// zeroStream is a raw DEFLATE stream of mib MiB of zeros, about 1/1000 of
// that in size, made without compressing mib MiB: a block flushed to a
// byte boundary after a MiB of zeros decodes to one more MiB after any
// output that ends in zeros, so it is repeated.
type zeroStream struct {
	data  []byte
	crc   uint32
	sum   [32]byte
	bytes uint64
}

func newZeroStream(t *testing.T, mib int) zeroStream {
	t.Helper()
	var buf bytes.Buffer
	w, err := flate.NewWriter(&buf, flate.BestCompression)
	assert.NilError(t, err)
	zeros := make([]byte, 1<<20)
	chunk := func() []byte {
		_, err := w.Write(zeros)
		assert.NilError(t, err)
		assert.NilError(t, w.Flush())
		b := bytes.Clone(buf.Bytes())
		buf.Reset()
		return b
	}
	first, next := chunk(), chunk()
	assert.NilError(t, w.Close())
	s := zeroStream{data: append(first, bytes.Repeat(next, mib-1)...), bytes: uint64(mib) << 20}
	s.data = append(s.data, buf.Bytes()...)
	crc, sum := crc32.NewIEEE(), sha256.New()
	for range mib {
		crc.Write(zeros)
		sum.Write(zeros)
	}
	s.crc = crc.Sum32()
	copy(s.sum[:], sum.Sum(nil))
	return s
}

// writeBomb writes NAME-1.0-py3-none-any.whl into dir: a well-formed
// wheel whose members are each z's zeros, listed in RECORD by their true
// SHA-256 and sizes, and returns the wheel's SHA-256. header, if not
// zero, is the uncompressed size its zip headers claim for each member.
func writeBomb(t *testing.T, dir, name string, members int, z zeroStream, header uint64) string {
	t.Helper()
	info := name + "-1.0.dist-info"
	small := map[string]string{
		info + "/WHEEL":    "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
		info + "/METADATA": "Metadata-Version: 2.1\nName: " + name + "\nVersion: 1.0\n",
	}
	var record strings.Builder
	for _, k := range sortedKeys(small) {
		fmt.Fprintf(&record, "%s,%s,%d\n", k, recordHash([]byte(small[k])), len(small[k]))
	}
	zeroHash := "sha256=" + base64.RawURLEncoding.EncodeToString(z.sum[:])
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := range members {
		member := fmt.Sprintf("%s/z%d.bin", name, i)
		fmt.Fprintf(&record, "%s,%s,%d\n", member, zeroHash, z.bytes)
		size := z.bytes
		if header != 0 {
			size = header
		}
		w, err := zw.CreateRaw(&zip.FileHeader{Name: member, Method: zip.Deflate, CRC32: z.crc,
			CompressedSize64: uint64(len(z.data)), UncompressedSize64: size})
		assert.NilError(t, err)
		_, err = w.Write(z.data)
		assert.NilError(t, err)
	}
	record.WriteString(info + "/RECORD,,\n")
	small[info+"/RECORD"] = record.String()
	for _, k := range sortedKeys(small) {
		w, err := zw.Create(k)
		assert.NilError(t, err)
		_, err = w.Write([]byte(small[k]))
		assert.NilError(t, err)
	}
	assert.NilError(t, zw.Close())
	assert.NilError(t, os.WriteFile(filepath.Join(dir, name+"-1.0-py3-none-any.whl"), buf.Bytes(), 0o644))
	sum := sha256.Sum256(buf.Bytes())
	return fmt.Sprintf("%x", sum)
}

// TestBombsStayBounded is the attack on the built command: three wheels
// of about 1 MiB each, every one within the bounds of a single wheel (4
// members of 255 MiB of zeros) and pinned by its true hash, 3 GiB in
// all. check refuses the set at the third, naming it and its member, and
// its peak resident memory (the kernel's count, read after it exits)
// stays under 128 MiB: it streams, a wheel at a time.
func TestBombsStayBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("decompresses 2 GiB")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build wheelhouse with")
	}
	bin := filepath.Join(t.TempDir(), "wheelhouse")
	build := exec.CommandContext(t.Context(), goTool, "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := build.CombinedOutput()
	assert.NilError(t, err, string(out))

	z := newZeroStream(t, 255)
	wheel := 4 * int64(z.bytes) // and a few hundred bytes of metadata
	assert.Assert(t, wheel < maxWheelBytes && 2*wheel+1<<20 < maxSetBytes && 3*wheel > maxSetBytes,
		"the bombs are sized to the default bounds: each within a wheel's, the third past the set's")
	dir := t.TempDir()
	var reqs strings.Builder
	for i := 1; i <= 3; i++ {
		name := fmt.Sprintf("bomb%d", i)
		sum := writeBomb(t, dir, name, 4, z, 0)
		fi, err := os.Stat(filepath.Join(dir, name+"-1.0-py3-none-any.whl"))
		assert.NilError(t, err)
		assert.Assert(t, fi.Size() < 2<<20, "a bomb of %d bytes", fi.Size())
		fmt.Fprintf(&reqs, "%s==1.0 --hash=sha256:%s\n", name, sum)
	}
	reqFile := filepath.Join(t.TempDir(), "requirements.txt")
	assert.NilError(t, os.WriteFile(reqFile, []byte(reqs.String()), 0o644))

	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(t.Context(), bin, "check", "--wheels", dir, "--requirements", reqFile, "--python", "3.11", "--arch", "amd64")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	assert.Assert(t, cmd.ProcessState != nil, err)
	maxRSS := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
	t.Logf("peak resident memory of check: %d MiB; exit %v; stderr:\n%s", maxRSS>>20, err, stderr.String())
	assert.Check(t, errors.As(err, &exit) && exit.ExitCode() == 1, "check accepted three zip bombs: %v", err)
	assert.Check(t, is.Contains(stderr.String(), "line 3: bomb3==1.0: bomb3-1.0-py3-none-any.whl: bomb3/z0.bin: "))
	assert.Check(t, maxRSS < 128<<20, "check held %d MiB at its peak", maxRSS>>20)
}

// TestRefusesBombs: within smaller bounds, in process: a wheel past its
// bound is refused at the member that crosses it, the set past its bound
// at the wheel and member that cross it, and a member whose zip header
// claims less than it decompresses to is refused by the bytes counted,
// not the claim; each names its line, wheel and member.
func TestRefusesBombs(t *testing.T) {
	z := newZeroStream(t, 4)
	small := bounds{wheel: 8 << 20, set: 20 << 20, files: 100, directory: 64 << 10}
	for _, c := range []struct {
		name    string
		wheels  int
		members int
		header  uint64
		want    []string
	}{
		{"a wheel past its bound", 1, 4, 0, []string{"line 1: bomb1==1.0: bomb1-1.0-py3-none-any.whl: bomb1/z2.bin: decompresses past 8 MiB, the bound of a wheel"}},
		{"the set past its bound", 3, 2, 0, []string{"line 3: bomb3==1.0: bomb3-1.0-py3-none-any.whl: bomb3/z0.bin: decompresses past 20 MiB, the bound of the whole set"}},
		{"a header under-declaring", 1, 1, 1 << 10, []string{"line 1: bomb1==1.0: bomb1-1.0-py3-none-any.whl: bomb1/z0.bin: zip: not a valid zip file"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := house{dir: t.TempDir(), bounds: small}
			var reqs strings.Builder
			for i := 1; i <= c.wheels; i++ {
				name := fmt.Sprintf("bomb%d", i)
				fmt.Fprintf(&reqs, "%s==1.0 --hash=sha256:%s\n", name, writeBomb(t, h.dir, name, c.members, z, c.header))
			}
			site := t.TempDir()
			code, out, errs := h.run(t, "install", h.requirements(t, reqs.String()), site)
			assert.Check(t, is.Equal(code, 1))
			assert.Check(t, is.Equal(out, ""))
			for _, want := range c.want {
				assert.Check(t, is.Contains(errs, want))
			}
			left, err := os.ReadDir(site)
			assert.NilError(t, err)
			assert.Check(t, is.Len(left, 0), "install wrote files though it refused")
		})
	}
}

// TestStreamsAWheel: a wheel within the bounds is checked and installed
// a member at a time: the run allocates (the runtime's cumulative count,
// which only grows) less than one of its members, 32 MiB of zeros.
func TestStreamsAWheel(t *testing.T) {
	z := newZeroStream(t, 32)
	h := house{dir: t.TempDir()}
	reqs := h.requirements(t, "bomb1==1.0 --hash=sha256:"+writeBomb(t, h.dir, "bomb1", 2, z, 0)+"\n")
	site := t.TempDir()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	code, _, errs := h.run(t, "check", reqs, "")
	assert.Check(t, is.Equal(code, 0), errs)
	code, _, errs = h.run(t, "install", reqs, site)
	assert.Check(t, is.Equal(code, 0), errs)
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("check and install allocated %d KiB", allocated>>10)
	assert.Check(t, allocated < 8<<20, "check and install allocated %d MiB", allocated>>20)
	fi, err := os.Stat(filepath.Join(site, "bomb1", "z1.bin"))
	assert.NilError(t, err)
	assert.Check(t, is.Equal(fi.Size(), int64(32<<20)))
}
