package docker

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/testdouble/fakedocker"
)

func TestMain(m *testing.M) {
	fakedocker.Main() // acts as docker and exits when a test runs it as one
	os.Exit(m.Run())
}

// fake is a client whose docker is this test binary in mode, with a cache
// directory of its own, and the fake's state directory.
func fake(t *testing.T, mode string) (*Client, string) {
	t.Helper()
	state := t.TempDir()
	self, err := os.Executable()
	assert.NilError(t, err)
	env := append(os.Environ(), fakedocker.EnvMode+"="+mode, fakedocker.EnvState+"="+state,
		"DOCKER_CONFIG="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir(),
		// Under -race a binary sleeps 1s at exit by default; the fake is one.
		"GORACE=atexit_sleep_ms=0")
	c, err := New(self, "", env)
	assert.NilError(t, err)
	return c, state
}

func TestLookPathRefusesRelativePathEntries(t *testing.T) {
	dir := t.TempDir()
	assert.NilError(t, os.Mkdir(filepath.Join(dir, "bin"), 0o755))
	assert.NilError(t, fakedocker.WriteExecutable(filepath.Join(dir, "bin", "docker"), []byte("#!/bin/sh\n")))
	t.Chdir(dir)
	for _, path := range []string{"bin", ".:/nonexistent", ":/nonexistent", "./bin"} {
		t.Run(path, func(t *testing.T) {
			if !strings.Contains(path, "bin") {
				assert.NilError(t, os.Symlink(filepath.Join(dir, "bin", "docker"), "docker"))
				defer os.Remove("docker")
			}
			_, err := lookPath("docker", []string{"PATH=" + path})
			assert.Assert(t, errors.Is(err, exec.ErrDot), "%v", err)
		})
	}
	got, err := lookPath("docker", []string{"PATH=/nonexistent:" + filepath.Join(dir, "bin")})
	assert.NilError(t, err)
	assert.Equal(t, got, filepath.Join(dir, "bin", "docker"))
}

// TestReaperArgvIsTheClients: the reaper is this binary again, under its
// arg0, with the run id and the client's own docker and --context, which
// ReaperClient reads back into the same client.
func TestReaperArgvIsTheClients(t *testing.T) {
	t.Parallel()
	c := &Client{path: "/usr/bin/docker", context: "remote"}
	argv := c.reaperArgv("reaper", "feedface")
	assert.DeepEqual(t, argv, []string{"reaper", "feedface", "/usr/bin/docker", "--context", "remote"})
	runID, back, ok := ReaperClient(argv[1:], []string{"A=1"})
	assert.Assert(t, ok)
	assert.Equal(t, runID, "feedface")
	assert.Check(t, is.Equal(back.Path(), "/usr/bin/docker"))
	assert.Check(t, is.Equal(back.Context(), "remote"))
	assert.Check(t, is.DeepEqual(back.Env(), []string{"A=1"}))
	c.context = ""
	argv = c.reaperArgv("reaper", "feedface")
	assert.DeepEqual(t, argv, []string{"reaper", "feedface", "/usr/bin/docker"})
	_, back, ok = ReaperClient(argv[1:], nil)
	assert.Assert(t, ok)
	assert.Equal(t, back.Context(), "")
	for _, bad := range [][]string{{"feedface"}, {"feedface", "/bin/docker", "--context"}, {"feedface", "/bin/docker", "-c", "x"}} {
		_, _, ok := ReaperClient(bad, nil)
		assert.Check(t, !ok, "%q", bad)
	}
}

func TestParseRecord(t *testing.T) {
	r, err := parseRecord("0123456789abcdef\trunsc\t536870912\t536870912\t320\n")
	assert.NilError(t, err)
	assert.DeepEqual(t, *r, Record{RunID: "0123456789abcdef", Runtime: "runsc", Memory: 512 << 20, MemorySwap: 512 << 20, PidsLimit: 320})

	// docker prints a limit it keeps as a null pointer as <nil>: no limit.
	r, err = parseRecord("id\trunsc\t536870912\t-1\t<nil>\n")
	assert.NilError(t, err)
	assert.Check(t, is.Equal(r.PidsLimit, int64(-1)))

	for _, bad := range []string{"", "id\trunsc\t1\t2", "id\trunsc\tx\t2\t3\n", "id\trunsc\t1\t2\t3\t4\n"} {
		_, err := parseRecord(bad)
		assert.Check(t, err != nil, "%q", bad)
	}
}

func TestExitWatchHandsEachRunItsStatus(t *testing.T) {
	w := &ExitWatch{waiting: map[string]chan int{}}
	r1, r2, r3 := w.Expect("r1"), w.Expect("r2"), w.Expect("r3")
	w.Forget("r3")
	w.follow(strings.NewReader("r1 0\nnot a line\nother 0\nr2 137\nr3 0\nr1 1\n" + strings.Repeat("x", 2*maxExitLine) + "\nr9 0\n"))
	assert.Check(t, is.Equal(<-r1, 0))
	assert.Check(t, is.Equal(<-r2, 137))
	assert.Check(t, is.Len(r1, 0), "a run gets one status")
	assert.Check(t, is.Len(r3, 0), "a forgotten run gets none")
	assert.Check(t, is.Len(w.waiting, 0))
}

// TestProxiesAreRefused: a config that sets a proxy is named with its
// keys; none, or no config at all, passes.
func TestProxiesAreRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := []string{"DOCKER_CONFIG=" + dir}
	path, err := Proxies(env)
	assert.NilError(t, err)
	assert.Equal(t, path, filepath.Join(dir, "config.json"))
	assert.NilError(t, os.WriteFile(path, []byte(`{"proxies":{"default":{"httpProxy":"http://sentinel.invalid:3128","noProxy":""}}}`), 0o600))
	_, err = Proxies(env)
	assert.ErrorContains(t, err, "docker config "+path+" sets proxies (default.httpProxy), which docker run copies")
	assert.NilError(t, os.WriteFile(path, []byte(`{`), 0o600))
	_, err = Proxies(env)
	assert.ErrorContains(t, err, "reading docker config: "+path+": ")
}

// TestDeclaredIsKept: an image's labels are read from the engine once and
// kept in the cache directory, whose file answers from then on, checked
// as a label read from the engine would be; a damaged file is not the
// image's word: the engine is asked again and the file kept anew, never a
// refusal that sticks to the image.
func TestDeclaredIsKept(t *testing.T) {
	t.Parallel()
	c, state := fake(t, "python-label")
	image := "sha256:" + strings.Repeat("1", 64)
	_, err := SeccompFile(c.env) // the cache directory, as a run makes it
	assert.NilError(t, err)
	inspects := func() int {
		n := 0
		for _, call := range fakedocker.Calls(state) {
			if call[0] == "image" {
				n++
			}
		}
		return n
	}
	for range 2 {
		d, err := c.Declared(context.Background(), image)
		assert.NilError(t, err)
		assert.DeepEqual(t, d.Exec, []string{"python3", "-"})
	}
	assert.Equal(t, inspects(), 1, "no inspect: the cache file answered")

	path, err := execCachePath(c.env, image)
	assert.NilError(t, err)
	assert.NilError(t, os.WriteFile(path, []byte(`{"io.synapse-isolation.exec":"[]"}`), 0o600))
	d, err := c.Declared(context.Background(), image)
	assert.NilError(t, err)
	assert.DeepEqual(t, d.Exec, []string{"python3", "-"})
	assert.Equal(t, inspects(), 2, "the engine was asked")
	kept, err := os.ReadFile(path)
	assert.NilError(t, err)
	assert.Equal(t, string(kept), `{"io.synapse-isolation.exec":"[\"python3\",\"-\"]"}`)
}

// TestBadLabelIsTheImages: a label that is not a command line is a
// *LabelError, which names the image, cached or not.
func TestBadLabelIsTheImages(t *testing.T) {
	t.Parallel()
	c, _ := fake(t, "bad-label")
	image := "sha256:" + strings.Repeat("2", 64)
	_, err := c.Declared(context.Background(), image)
	var lerr *LabelError
	assert.Assert(t, errors.As(err, &lerr), "%v", err)
	assert.ErrorContains(t, err, "image "+image+": label io.synapse-isolation.exec: must be a JSON array of strings")
}
