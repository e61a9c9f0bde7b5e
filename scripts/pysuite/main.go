// Command pysuite runs modules of CPython's own regression suite in the
// Python image, each twice at once: through `synapse-isolation run`, under
// the policy's seccomp profile, and, as the baseline, through the same
// docker argv minus that profile (the engine's default). It prints one
// table: each module, the tests passed under each, and every test whose
// outcome differs, with why. A test that does worse under the policy and
// is not listed in known.txt (with the syscall that refuses it) is
// unexplained, and the command exits 1.
//
// The test image is the Python image plus Debian's libpython3.11-testsuite
// of the interpreter's own version, pinned in testsuite.lock.
//
// Usage: go run ./scripts/pysuite [-image ID] [-modules test_os,test_time] [-tool PATH]
package main

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

//go:embed driver.py
var driver string

//go:embed known.txt
var knownText string

// Modules are the ones the README's table covers.
var defaultModules = []string{"test_os", "test_shutil", "test_tempfile", "test_subprocess", "test_threading",
	"test_select", "test_selectors", "test_signal", "test_socket", "test_fcntl", "test_posix", "test_time",
	"test_uuid", "test_platform", "test_asyncio.test_events"}

// limits of each run: enough for the suite's heavier modules.
const (
	memory  = "1g"
	timeout = 10 * time.Minute
)

func main() {
	image := flag.String("image", "", "the Python image ID (default: built by scripts/build-image.sh python)")
	modules := flag.String("modules", strings.Join(defaultModules, ","), "comma-separated test modules")
	tool := flag.String("tool", "", "a built synapse-isolation (default: built from this tree)")
	flag.Parse()
	if err := run(*image, *tool, strings.Split(*modules, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "pysuite:", err)
		os.Exit(1)
	}
}

func run(image, tool string, modules []string) error {
	root, err := repoRoot()
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "pysuite")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	if tool == "" {
		tool = filepath.Join(work, "synapse-isolation")
		if err := command(root, "go", "build", "-o", tool, ".").Run(); err != nil {
			return fmt.Errorf("building the tool: %w", err)
		}
	}
	if image == "" {
		cmd := command(root, filepath.Join(root, "scripts", "build-image.sh"), "python")
		if lock := os.Getenv("SYNAPSE_PYTHON_LOCK"); lock != "" {
			cmd.Args = append(cmd.Args, "--lock", lock)
		}
		out, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("building the Python image: %w", err)
		}
		image = strings.TrimSpace(string(out))
	}
	testImage, err := buildTestImage(root, work, image)
	if err != nil {
		return err
	}
	known := parseKnown(knownText)
	var rows []row
	unexplained := 0
	for _, m := range modules {
		r, err := compare(tool, testImage, m, known)
		if err != nil {
			return fmt.Errorf("%s: %w", m, err)
		}
		unexplained += r.unexplained
		rows = append(rows, r)
		fmt.Fprintf(os.Stderr, "pysuite: %s done: %d and %d passed, %d differ\n", m, r.passedDefault, r.passedPolicy, len(r.diffs))
	}
	printTable(os.Stdout, rows)
	if unexplained > 0 {
		return fmt.Errorf("%d tests do worse under the policy's profile for no listed reason", unexplained)
	}
	return nil
}

func repoRoot() (string, error) {
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", fmt.Errorf("not in the repository: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

func command(dir, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	return cmd
}

type outcomes struct {
	Passed   int               `json:"passed"`
	Outcomes map[string]string `json:"outcomes"`
}

// row is one module of the table.
type row struct {
	module                      string
	passedDefault, passedPolicy int
	// notPassed counts the rest under each: failed or errored, skipped.
	notPassedDefault, notPassedPolicy string
	diffs                             []string
	unexplained                       int
}

// compare runs module under both profiles at once and lists what differs.
func compare(tool, image, module string, known map[string]string) (row, error) {
	src := strings.Replace(driver, `MODULE = "test_os"`, fmt.Sprintf("MODULE = %q", module), 1)
	var policy, baseline outcomes
	var perr, berr error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); policy, perr = underPolicy(tool, image, src) }()
	go func() { defer wg.Done(); baseline, berr = underDefault(tool, image, src) }()
	wg.Wait()
	if perr != nil {
		return row{}, fmt.Errorf("under the policy's profile: %w", perr)
	}
	if berr != nil {
		return row{}, fmt.Errorf("under the engine's default profile: %w", berr)
	}
	r := row{module: module, passedDefault: baseline.Passed, passedPolicy: policy.Passed,
		notPassedDefault: baseline.notPassed(), notPassedPolicy: policy.notPassed()}
	ids := map[string]bool{}
	for id := range policy.Outcomes {
		ids[id] = true
	}
	for id := range baseline.Outcomes {
		ids[id] = true
	}
	sorted := make([]string, 0, len(ids))
	for id := range ids {
		sorted = append(sorted, id)
	}
	sort.Strings(sorted)
	for _, id := range sorted {
		b, p := orPassed(baseline.Outcomes[id]), orPassed(policy.Outcomes[id])
		if kind(b) == kind(p) {
			continue
		}
		line := fmt.Sprintf("%s: %s under the default, %s under the policy", id, b, p)
		switch why, ok := known[id]; {
		case ok:
			line += " [refused: " + why + "]"
		case worse(b, p):
			line += " [UNEXPLAINED]"
			r.unexplained++
		}
		r.diffs = append(r.diffs, line)
	}
	return r, nil
}

// notPassed says how many tests failed or errored and how many were
// skipped.
func (o outcomes) notPassed() string {
	failed, skipped := 0, 0
	for _, v := range o.Outcomes {
		if kind(v) == "skipped" {
			skipped++
		} else {
			failed++
		}
	}
	return fmt.Sprintf("%d failed, %d skipped", failed, skipped)
}

func orPassed(s string) string {
	if s == "" {
		return "passed"
	}
	return s
}

// kind is an outcome's first word: passed, failed, error or skipped.
func kind(s string) string {
	k, _, _ := strings.Cut(s, ":")
	return k
}

// worse reports whether the policy's outcome is worse than the default's.
func worse(def, pol string) bool {
	rank := map[string]int{"passed": 0, "skipped": 1, "failed": 2, "error": 2}
	return rank[kind(pol)] > rank[kind(def)]
}

// underPolicy runs src through `synapse-isolation run`.
func underPolicy(tool, image, src string) (outcomes, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tool, "run", "--image", image, "--memory", memory, "--timeout", timeout.String(),
		"--code", "-", "--", "python3", "-")
	cmd.Stdin = strings.NewReader(src)
	out, _ := cmd.Output() // nonzero for a failing program: the result says
	var res struct {
		Verdict string `json:"verdict"`
		Output  string `json:"output"`
		Error   *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return outcomes{}, fmt.Errorf("run's result: %w: %s", err, out)
	}
	o, err := decode(res.Output)
	if err != nil && res.Error != nil {
		err = fmt.Errorf("%s: %s: %w", res.Verdict, res.Error.Message, err)
	}
	return o, err
}

// underDefault runs src with the argv run would execute, minus the
// policy's seccomp option, speaking the runner's protocol itself: the
// hello comes first, then, given the request, the response.
func underDefault(tool, image, src string) (outcomes, error) {
	// Pinned by --at, the argv carries no owner label: its owner would be
	// the argv process, gone at once, and a gc on this host would take the
	// container for a dead supervisor's leftover. Its deadline label still
	// tells gc when it is one.
	var id [8]byte
	_, _ = rand.Read(id[:])
	out, err := exec.Command(tool, "argv", "--format", "json", "--image", image, "--memory", memory,
		"--at", strconv.FormatInt(time.Now().Unix(), 10), "--name", fmt.Sprintf("synapse-pysuite-%x", id),
		"--timeout", timeout.String(), "--", "python3", "-").Output()
	if err != nil {
		return outcomes{}, fmt.Errorf("argv: %w", err)
	}
	var argv []string
	if err := json.Unmarshal(out, &argv); err != nil {
		return outcomes{}, err
	}
	var args []string
	for i := 1; i < len(argv); i++ {
		if argv[i] == "--security-opt" && i+1 < len(argv) && strings.HasPrefix(argv[i+1], "seccomp=") {
			i++
			continue
		}
		args = append(args, argv[i])
	}
	req, err := json.Marshal(map[string]string{"source": src})
	if err != nil {
		return outcomes{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], args...)
	cmd.Stdin = bytes.NewReader(append(req, '\n'))
	stdout, err := cmd.Output()
	if err != nil {
		return outcomes{}, fmt.Errorf("docker run: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(make([]byte, 2<<20), 2<<20)
	var last string
	for sc.Scan() {
		last = sc.Text() // the hello, then the response
	}
	var resp struct {
		Output string `json:"output"`
	}
	if err := json.Unmarshal([]byte(last), &resp); err != nil {
		return outcomes{}, fmt.Errorf("the runner's response: %w", err)
	}
	return decode(resp.Output)
}

// decode finds the driver's line in a program's output.
func decode(output string) (outcomes, error) {
	const mark = "@@PYSUITE@@"
	i := strings.LastIndex(output, mark)
	if i < 0 {
		return outcomes{}, fmt.Errorf("no report in the output (%d bytes): %.300q", len(output), output)
	}
	line, _, _ := strings.Cut(output[i+len(mark):], "\n")
	z, err := base64.StdEncoding.DecodeString(line)
	if err != nil {
		return outcomes{}, err
	}
	zr, err := zlib.NewReader(bytes.NewReader(z))
	if err != nil {
		return outcomes{}, err
	}
	b, err := io.ReadAll(io.LimitReader(zr, 64<<20))
	if err != nil {
		return outcomes{}, err
	}
	var o outcomes
	return o, json.Unmarshal(b, &o)
}

// parseKnown reads "TEST_ID<TAB>why" lines; # starts a comment.
func parseKnown(text string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, why, _ := strings.Cut(line, "\t")
		m[strings.TrimSpace(id)] = strings.TrimSpace(why)
	}
	return m
}
