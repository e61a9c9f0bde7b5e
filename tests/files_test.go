package tests

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// filesJSON is a result's "files" as the suite reads it.
type filesJSON map[string]struct {
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
	Base64 []byte `json:"base64"`
	Error  string `json:"error"`
}

// filesOf parses a result's "files".
func filesOf(t *testing.T, stdout string) filesJSON {
	t.Helper()
	var r struct {
		Files filesJSON `json:"files"`
	}
	assert.NilError(t, json.Unmarshal([]byte(stdout), &r), stdout)
	return r.Files
}

// blobSrc writes bytes(range(256)) * 1000 beside the program.
const blobSrc = "open('blob.bin', 'wb').write(bytes(range(256)) * 1000)\n"

func blobSum() (int, string) {
	var b strings.Builder
	for range 1000 {
		for i := range 256 {
			b.WriteByte(byte(i))
		}
	}
	s := sha256.Sum256([]byte(b.String()))
	return b.Len(), hex.EncodeToString(s[:])
}

// TestCollectBlob: a binary file comes back byte for byte, in the
// result and in --output-dir, through run and batch.
func TestCollectBlob(t *testing.T) {
	needEngine(t)
	t.Parallel()
	collectBack(t, pythonImage, blobSrc, "blob.bin")
}

// TestCollectPlot: TestCollectBlob's, with a matplotlib PNG beside the
// binary file (the science image).
func TestCollectPlot(t *testing.T) {
	needHeavy(t)
	t.Parallel()
	files := collectBack(t, scienceImage, blobSrc+"import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.title('a plot')\nplt.savefig('plot.png')\n",
		"blob.bin", "*.png")
	assert.Check(t, files["plot.png"].Bytes > 1000 && files["plot.png"].Error == "", "%+v", files["plot.png"])
}

// collectBack runs src on img through run and batch, collecting the
// patterns (blob.bin the first), checks that each file came back, and
// returns run's files.
func collectBack(t *testing.T, img, src string, patterns ...string) filesJSON {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"run", "--image", img, "--timeout", "60s", "--code", src, "--output-dir", out}
	for _, p := range patterns {
		args = append(args, "--collect", p)
	}
	r := tool(t, nil, "", args...)
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	files := filesOf(t, r.stdout)
	n, sum := blobSum()
	assert.Check(t, is.Equal(files["blob.bin"].Bytes, int64(n)))
	assert.Check(t, is.Equal(files["blob.bin"].SHA256, sum))
	assert.Check(t, is.Len(files, len(patterns)))
	for name, f := range files {
		b, err := os.ReadFile(filepath.Join(out, name))
		assert.NilError(t, err)
		s := sha256.Sum256(b)
		assert.Check(t, is.Equal(hex.EncodeToString(s[:]), f.SHA256), name)
		fi, err := os.Stat(filepath.Join(out, name))
		assert.NilError(t, err)
		assert.Check(t, is.Equal(fi.Mode().Perm(), os.FileMode(0o644)), name)
	}
	assert.Check(t, is.Contains(r.stderr, "synapse-isolation: wrote blob.bin (256000 bytes) into "+out))

	// batch: the line's "collect", its files under DIR/ID.
	dir := t.TempDir()
	line := mustJSON(t, map[string]any{"id": "collected", "source": src, "collect": patterns})
	b := tool(t, nil, line+"\n", "batch", "--image", img, "--timeout", "60s", "--output-dir", dir)
	assert.Equal(t, b.code, 0, b.stdout+b.stderr)
	batched := filesOf(t, b.stdout)
	assert.Check(t, is.Equal(batched["blob.bin"].SHA256, sum))
	assert.Check(t, is.Len(batched, len(patterns)))
	for name, f := range batched {
		got, err := os.ReadFile(filepath.Join(dir, "collected", name))
		assert.NilError(t, err)
		s := sha256.Sum256(got)
		assert.Check(t, is.Equal(hex.EncodeToString(s[:]), f.SHA256), name)
	}
	return files
}

// TestCollectAttacks: what a hostile program leaves to be collected is an
// error entry, never followed, read or waited on, and the run's verdict is
// its own; patterns that are paths are refused before anything runs; an
// output directory's link is never written through.
func TestCollectAttacks(t *testing.T) {
	needEngine(t)
	t.Parallel()
	src := `import os
os.symlink('/etc/passwd', 'passwd.txt')
os.mkfifo('fifo.txt')
os.mkdir('dir.txt')
open('big.txt', 'wb').write(b'x' * (2 << 20))
open('bad\nname.txt', 'w').write('x')
for i in range(40):
    open('x%02d.csv' % i, 'w').write(str(i))
print('done')`
	r := py(t, nil, src, "--collect", "*.txt", "--collect", "*.csv")
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	assert.Check(t, is.Equal(r.res.Output, "done\n"))
	files := filesOf(t, r.stdout)
	for name, want := range map[string]string{
		"passwd.txt":    "a symbolic link: not followed",
		"fifo.txt":      "not a regular file (a FIFO): not read",
		"dir.txt":       "not a regular file (a directory): not read",
		"big.txt":       "2097152 bytes: more than the response has room for",
		"bad\nname.txt": "not returned: file name",
	} {
		assert.Check(t, strings.HasPrefix(files[name].Error, want), "%q: %+v", name, files[name])
		assert.Check(t, files[name].Base64 == nil, name)
	}
	beyond := 0
	for _, f := range files {
		if strings.Contains(f.Error, "45 files match, at most 32 are returned") {
			beyond++
		}
	}
	assert.Check(t, is.Equal(beyond, 13), "45 matches: 32 taken, 13 named as not returned")

	// Patterns that are paths: refused before anything runs.
	for _, p := range []string{"../x", "/etc/passwd", "a/*"} {
		r := tool(t, nil, "", "run", "--image", pythonImage, "--code", "1", "--collect", p)
		assert.Check(t, is.Equal(r.code, 2), "%s: %s", p, r.stderr)
		assert.Check(t, is.Contains(r.stderr, "--collect "+`"`+p+`"`), r.stderr)
		assert.Check(t, is.Equal(r.res.Container, ""))
	}

	// A name in the output directory that is a link to a file outside:
	// not written through, with or without --force (which replaces the
	// link itself).
	out, outside := t.TempDir(), filepath.Join(t.TempDir(), "target")
	assert.NilError(t, os.WriteFile(outside, []byte("keep"), 0o600))
	assert.NilError(t, os.Symlink(outside, filepath.Join(out, "blob.bin")))
	r = py(t, nil, blobSrc, "--collect", "blob.bin", "--output-dir", out)
	assert.Check(t, is.Equal(r.code, 2), r.stderr) // the directory is the operator's to fix
	assert.Check(t, is.Contains(r.stderr, "blob.bin: exists (--force replaces it)"))
	r = py(t, nil, blobSrc, "--collect", "blob.bin", "--output-dir", out, "--force")
	assert.Check(t, is.Equal(r.code, 0), r.stderr)
	kept, err := os.ReadFile(outside)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(string(kept), "keep"), "nothing written outside the directory")
	fi, err := os.Lstat(filepath.Join(out, "blob.bin"))
	assert.NilError(t, err)
	assert.Check(t, fi.Mode().IsRegular(), "the link itself was replaced")
}

// TestCollectRace: a process the program left running swaps the file for
// a link to /etc/passwd over and over; the runner collects once every
// process of the program is gone, so the entry is the file or a link
// refused, never the host's or the image's passwd.
func TestCollectRace(t *testing.T) {
	needEngine(t)
	t.Parallel()
	src := `import os
open('out.txt', 'w').write('mine')
if os.fork() == 0:
    os.setsid()
    while True:
        try:
            os.symlink('/etc/passwd', 'tmp.lnk')
            os.replace('tmp.lnk', 'out.txt')
            with open('tmp.txt', 'w') as f:
                f.write('mine')
            os.replace('tmp.txt', 'out.txt')
        except OSError:
            pass
print('left it running')`
	for range 3 {
		r := py(t, nil, src, "--collect", "out.txt")
		assert.Equal(t, r.code, 0, r.stdout+r.stderr)
		f, ok := filesOf(t, r.stdout)["out.txt"]
		assert.Assert(t, ok, "out.txt was there when the program ended (replaced atomically): %s", r.stdout)
		data := string(f.Base64)
		assert.Check(t, data == "mine" || f.Error == "a symbolic link: not followed" || strings.HasPrefix(f.Error, "open: "), "%+v", f)
		assert.Check(t, !strings.Contains(data, "root:"), "passwd leaked: %q", data)
	}
}

// TestBytesIn: a --from-file of any bytes reaches the program byte for
// byte, as does a batch file {"base64": ...}; bad base64 is a rejected
// line naming the file.
func TestBytesIn(t *testing.T) {
	needEngine(t)
	t.Parallel()
	dir := t.TempDir()
	data := make([]byte, 4096)
	for i := range data {
		data[i] = byte(i * 7)
	}
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "in.bin"), data, 0o600))
	sum := sha256.Sum256(data)
	want := hex.EncodeToString(sum[:]) + "\n"
	const show = "import hashlib; print(hashlib.sha256(open('in.bin', 'rb').read()).hexdigest())"
	r := py(t, nil, show, "--from-file", filepath.Join(dir, "in.bin"))
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	assert.Check(t, is.Equal(r.res.Output, want))

	lines := mustJSON(t, map[string]any{"id": "ok", "source": show, "files": map[string]any{"in.bin": map[string]string{"base64": base64.StdEncoding.EncodeToString(data)}}}) + "\n" +
		mustJSON(t, map[string]any{"id": "bad", "source": show, "files": map[string]any{"in.bin": map[string]string{"base64": "@@not base64"}}}) + "\n"
	b := tool(t, nil, lines, "batch", "--image", pythonImage, "--ordered")
	rs := parseBatch(t, b.stdout)
	assert.Assert(t, is.Len(rs, 2), b.stdout+b.stderr)
	assert.Check(t, is.Equal(rs[0].Output, want))
	assert.Check(t, is.Equal(rs[1].Verdict, "rejected"))
	assert.Check(t, is.Contains(rs[1].Error.Message, `file "in.bin": not base64`))
}
