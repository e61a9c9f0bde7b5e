package tests

import (
	"encoding/json"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// TestGoRuns: the go image compiles a hello once (go build, by the
// label's env) and runs the binary; the image holds no shell, package
// manager nor perl, and of coreutils env alone; the library's packages
// with cgo files (net, crypto/sha1) compile from their sources; the
// compiler writes its cache in the working directory and nothing else
// is left in /tmp; the runner holds GOMAXPROCS at 1, so a program's
// goroutines and collector run on a few threads; a panic is a program
// error named by its message, its goroutine's trace in stderr.
func TestGoRuns(t *testing.T) {
	needKind(t, "go")
	t.Parallel()
	r := compiledRun(t, "go", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(1 + 2) }\n")
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	assert.Equal(t, r.res.Output, "3\n")
	assert.Check(t, is.Contains(r.stdout, `"interpreter":"./main"`))
	assert.Check(t, is.Contains(r.stdout, `"compile":{"output":"","output_truncated":false`))

	r = compiledRun(t, "go", `package main

import (
	"crypto/sha1"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"runtime"
	"sync"
)

func names(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var n []string
	for _, e := range entries {
		n = append(n, e.Name())
	}
	return n
}

func main() {
	before := len(names("/proc/self/task"))
	// Goroutines that allocate, so the collector works beside them.
	var wg sync.WaitGroup
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var keep [][]byte
			for j := 0; j < 400; j++ {
				keep = append(keep, make([]byte, 64<<10))
				if len(keep) > 16 {
					keep = keep[:0]
				}
			}
		}()
	}
	wg.Wait()
	runtime.GC()
	var present []string
	for _, p := range []string{"/bin/sh", "/usr/bin/sh", "/bin/bash", "/usr/bin/apt", "/usr/bin/dpkg", "/usr/bin/perl",
		"/bin/cat", "/bin/ls", "/usr/bin/head", "/usr/bin/timeout", "/usr/bin/gcc", "/usr/lib/go-1.19/pkg/tool/linux_amd64/cgo",
		"/usr/lib/go-1.19/pkg/tool/linux_arm64/cgo", "/usr/bin/env"} {
		if _, err := os.Stat(p); err == nil {
			present = append(present, p)
		}
	}
	home, _ := os.UserHomeDir()
	json.NewEncoder(os.Stdout).Encode(map[string]any{"present": present, "home": home, "tmp": names("/tmp"), "dir": names("."),
		"procs": runtime.GOMAXPROCS(0), "before": before, "after": len(names("/proc/self/task")),
		"sha1": fmt.Sprintf("%x", sha1.Sum([]byte("abc"))), "loopback": net.ParseIP("127.0.0.1").IsLoopback()})
}
`)
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	var rep struct {
		Present, Tmp, Dir    []string
		Home, SHA1           string
		Procs, Before, After int
		Loopback             bool
	}
	assert.NilError(t, json.Unmarshal([]byte(r.res.Output), &rep), r.res.Output)
	assert.Check(t, is.DeepEqual(rep.Present, []string{"/usr/bin/env"}), "env alone, the compile command's")
	assert.Check(t, is.Equal(rep.Home, "/nonexistent"))
	assert.Check(t, is.DeepEqual(rep.Tmp, []string{"work"}), "go build's temporary directory is gone")
	assert.Check(t, is.DeepEqual(rep.Dir, []string{".cache", "main", "main.go"}), "the build cache in the working directory")
	assert.Check(t, is.Equal(rep.Procs, 1))
	// The thread running goroutines, sysmon, and one or two that a
	// blocking system call or the collector took over.
	assert.Check(t, rep.Before <= 4 && rep.After <= 6, "tasks: %d, then %d", rep.Before, rep.After)
	// Packages with cgo files, compiled anew from their sources (sha1's
	// assembly assembled and packed in): cgo is off.
	assert.Check(t, is.Equal(rep.SHA1, "a9993e364706816aba3e25717850c26c9cd0d89d"))
	assert.Check(t, rep.Loopback)

	r = compiledRun(t, "go", "package main\n\nimport \"fmt\"\n\nfunc f(a int) {\n\tif a < 0 {\n\t\tpanic(fmt.Sprintf(\"bad input %d\", a))\n\t}\n}\n\nfunc main() { f(-1) }\n")
	assert.Equal(t, r.res.Verdict, "program_error", r.stdout)
	assert.Assert(t, r.res.Error != nil)
	assert.Check(t, is.Equal(r.res.Error.Message, "exit status 2: panic: bad input -1"))
	assert.Check(t, is.Contains(r.res.Stderr, "goroutine 1 [running]:\nmain.f(...)\n\t/tmp/work/main.go:7\n"))
}

// goCopiesItself copies its own binary into its working directory, marks
// it executable and tries to start it, then starts the image's go.
const goCopiesItself = `package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
)

func main() {
	self, err := os.ReadFile("/proc/self/exe")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := os.WriteFile("copy", self, 0o755); err != nil {
		fmt.Println(err)
		return
	}
	err = exec.Command("./copy").Run()
	fmt.Println(errors.Is(err, fs.ErrPermission), err)
	out, err := exec.Command("go", "version").Output()
	fmt.Println(string(out), err)
}
`

// TestGoCannotExecuteWhatItWrites: /tmp stays noexec under Go. The
// program, started from a sealed memfd, copies its own binary into its
// working directory, marks it executable and fails to start it (EACCES),
// while the image's go command, on the read-only root, starts.
func TestGoCannotExecuteWhatItWrites(t *testing.T) {
	needKind(t, "go")
	t.Parallel()
	r := compiledRun(t, "go", goCopiesItself)
	assert.Equal(t, r.code, 0, "%s\n%s", r.stdout, r.stderr)
	first, rest, _ := strings.Cut(r.res.Output, "\n")
	assert.Check(t, is.Equal(first, "true fork/exec ./copy: permission denied"))
	assert.Check(t, strings.HasPrefix(rest, "go version go1.19.8 linux/"), rest)
}
