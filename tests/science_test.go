package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// sci runs src on the science image by its declared interpreter (no --)
// and checks the run left nothing behind.
func sci(t *testing.T, src string, flags ...string) toolResult {
	t.Helper()
	r := tool(t, nil, "", append([]string{"run", "--image", scienceImage, "--timeout", "60s", "--code", src}, flags...)...)
	if r.res.Container != "" {
		assertGone(t, r.res.Container)
		assertRunGone(t, r.res.RunID)
	}
	return r
}

// TestScienceEverydayChecks: linear algebra, an FFT, an optimisation, an
// integral, a sparse solve, a symbolic solve, a pandas group-by and CSV
// round trip, a matplotlib figure with text saved as PNG beside the
// program and a networkx path pass under the policy (its filter, 64 PIDs,
// read-only root, noexec /tmp), with OpenBLAS as the BLAS; the same
// report comes from a bare docker run under the engine's default profile.
func TestScienceEverydayChecks(t *testing.T) {
	needHeavy(t)
	t.Parallel()
	src, err := os.ReadFile(filepath.Join("testdata", "science.py"))
	assert.NilError(t, err)
	r := sci(t, string(src))
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	var got map[string]any
	assert.NilError(t, json.Unmarshal([]byte(r.res.Output), &got), r.res.Output)
	assert.Check(t, is.Len(got, 10))
	for step, v := range got {
		assert.Check(t, is.Equal(v, true), step)
	}

	// The engine's default profile, no policy flags but the network's:
	// the same program, the same report.
	req, err := json.Marshal(map[string]string{"source": string(src)})
	assert.NilError(t, err)
	cmd := exec.Command("docker", "run", "--rm", "-i", "--network", "none", "--pull", "never", "--tmpfs", "/tmp:rw,mode=1777",
		scienceImage, "--timeout", "60s", "--exec", "python3", "-")
	cmd.Stdin = strings.NewReader(string(req) + "\n")
	out, err := cmd.Output()
	assert.NilError(t, err, string(out))
	lines := strings.SplitN(strings.TrimSpace(string(out)), "\n", 2)
	assert.Assert(t, is.Len(lines, 2), "a hello and a response: %s", out)
	var resp struct{ Output string }
	assert.NilError(t, json.Unmarshal([]byte(lines[1]), &resp))
	assert.Check(t, is.Equal(resp.Output, r.res.Output), "the engine's default profile")
}

// TestScienceThreadsHeldToOneCPU: after an 800x800 matrix product the
// program has one thread: OpenBLAS started none, held by the runner's
// --threads 1 however many CPUs the host has. The control shows the
// count would see them: the same program that clears the variables before
// numpy loads (its own business) gets a thread per CPU it sees, up to
// the PID cap.
func TestScienceThreadsHeldToOneCPU(t *testing.T) {
	needHeavy(t)
	t.Parallel()
	const product = "import numpy as np\na = np.random.rand(800, 800)\nb = a @ a\nprint(len(os.listdir('/proc/self/task')), os.cpu_count(), os.environ.get('OPENBLAS_NUM_THREADS'))"
	r := sci(t, "import os\n"+product)
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	f := strings.Fields(r.res.Output)
	assert.Assert(t, is.Len(f, 3), r.res.Output)
	threads, _ := strconv.Atoi(f[0])
	cpus, _ := strconv.Atoi(f[1])
	t.Logf("threads after the product: %d (host CPUs seen: %d, OPENBLAS_NUM_THREADS=%s)", threads, cpus, f[2])
	assert.Check(t, threads >= 1 && threads <= 2, "%d threads", threads)
	assert.Check(t, is.Equal(f[2], "1"))

	r = sci(t, "import os\nfor v in [k for k in os.environ if k.endswith('_THREADS')]:\n    del os.environ[v]\n"+product)
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	f = strings.Fields(r.res.Output)
	unbounded, _ := strconv.Atoi(f[0])
	t.Logf("threads with the variables cleared by the program: %d", unbounded)
	if cpus > 1 {
		assert.Check(t, unbounded > threads, "the count sees BLAS threads: %d cleared, %d held", unbounded, threads)
	}
}

// TestScienceMemory: the science stack's imports fit --memory 256m, and a
// limit below what they need is a clear oom (137), never a sandbox or
// engine failure.
func TestScienceMemory(t *testing.T) {
	needHeavy(t)
	t.Parallel()
	const imports = "import numpy, scipy.linalg, scipy.optimize, pandas, sympy, networkx, matplotlib.pyplot\nprint('imported')"
	r := sci(t, imports, "--memory", "256m")
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	assert.Check(t, is.Equal(r.res.Output, "imported\n"))
	assert.Assert(t, r.res.Usage.MemoryPeakBytes != nil)
	t.Logf("peak of the imports: %d MiB", *r.res.Usage.MemoryPeakBytes>>20)

	r = sci(t, imports, "--memory", "64m")
	assert.Check(t, is.Equal(r.code, 137), r.stdout+r.stderr)
	assert.Check(t, is.Equal(r.res.Verdict, "oom"))
}

// TestScienceImage: the image's hello passes doctor as the Python
// image's does; it declares Python as its interpreter, so the README's
// example runs with no command after --; argv shows the thread bound.
func TestScienceImage(t *testing.T) {
	needHeavy(t)
	t.Parallel()
	d := tool(t, nil, "", "doctor", "--image", scienceImage)
	assert.Check(t, is.Equal(d.code, 0), d.stdout+d.stderr)

	r := sci(t, "import numpy as np; print(np.linalg.solve([[2,0],[0,4]],[2,4]).tolist())")
	assert.Equal(t, r.code, 0, r.stdout+r.stderr)
	assert.Check(t, is.Equal(r.res.Output, "[1.0, 1.0]\n"))

	a := tool(t, nil, "", "argv", "--image", scienceImage)
	assert.Equal(t, a.code, 0, a.stderr)
	assert.Check(t, strings.HasSuffix(a.stdout, " --threads 1 --time-factor 3 --exec python3 -\n"), a.stdout)
}

// TestScienceWarmPreload: in batch, a ready container of the science
// image runs its program in an interpreter that imported numpy, scipy,
// pandas and matplotlib once its hello passed (the image's preload
// label); a cold run imports nothing ahead. Either way a program fails
// the same: the same traceback, the same status.
func TestScienceWarmPreload(t *testing.T) {
	needHeavy(t)
	t.Parallel()
	const loaded = "import sys; print(sorted(m for m in ('numpy', 'scipy', 'pandas', 'matplotlib') if m in sys.modules))"
	const fails = "def f():\n    return 1 / 0\nf()"
	in := fmt.Sprintf("%s\n%s\n", mustJSON(t, map[string]any{"id": 1, "source": loaded}), mustJSON(t, map[string]any{"id": 2, "source": fails}))
	b := tool(t, nil, in, "batch", "--image", scienceImage, "--ordered", "--timeout", "60s")
	rs := parseBatch(t, b.stdout)
	assert.Assert(t, is.Len(rs, 2), b.stdout+b.stderr)
	assert.Check(t, is.Equal(rs[0].Verdict, "ok"), b.stderr)
	assert.Check(t, is.Equal(rs[0].Output, "['matplotlib', 'numpy', 'pandas', 'scipy']\n"))

	cold := sci(t, loaded)
	assert.Check(t, is.Equal(cold.res.Output, "[]\n"))

	coldFail := sci(t, fails)
	assert.Check(t, is.Equal(rs[1].Verdict, "program_error"))
	assert.Check(t, is.Equal(rs[1].Stderr, coldFail.res.Stderr))
	assert.Check(t, is.Equal(rs[1].Error.Message, coldFail.res.Error.Message))
}

// mustJSON is v as one line of JSON.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	assert.NilError(t, err)
	return string(b)
}
