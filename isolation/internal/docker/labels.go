package docker

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol/runargs"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol/strict"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// ExecLabel is the image label that declares the image's default
// interpreter, a JSON array of its command line (["python3","-"]): a run
// that names no command gets it. An image without it runs Starlark.
const ExecLabel = "io.synapse-isolation.exec"

// preloadLabel declares what a warm container of the image may load before
// its request exists: a JSON array of Python module names that the
// runner imports in a fresh interpreter once the hello was judged
// (runargs.CheckPreload), so a program that imports them does not pay
// for it. Honoured in a warm pool (batch), with the image's own
// interpreter; a cold run starts its interpreter with the request.
const preloadLabel = "io.synapse-isolation.preload"

// languageLabel declares a language that the image compiles or runs as
// files of its own: a JSON object of the source's file name in the
// working directory, its compile command (optional; run once in that
// directory) and its run command, whose first word "./NAME" is a file the
// compile step left ({"source":"main.c","compile":["gcc-12","-o","main",
// "main.c"],"run":["./main"]}). An image declares it or ExecLabel, not
// both.
const languageLabel = "io.synapse-isolation.language"

// timeFactorLabel declares the time factor of the image's language for a
// judge's tests (runargs.Args.TimeFactor): a decimal number from 1 to
// limits.MaxTimeFactor ("2" for Java), on an interpreter's or a
// language's image.
const timeFactorLabel = "io.synapse-isolation.time-factor"

// Declared is what an image's labels declare for its programs.
type Declared struct {
	Exec    []string // the interpreter, or a language's run command; nil: Starlark
	Preload []string // modules a warm container imports ahead; nil: none
	Source  string   // a language's source file name; "": an interpreter's
	Compile []string // a language's compile command; nil: none
	// TimeFactor is the language's time factor; 0: none, a factor of 1.
	TimeFactor float64
}

// LabelError is an image whose labels are not a valid declaration: the
// image's fault, never read as Starlark.
type LabelError struct {
	Image string
	Err   error
}

func (e *LabelError) Error() string { return "image " + e.Image + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *LabelError) Unwrap() error { return e.Err }

// Bounds of an exec label: a command line a person can read in an argv.
const (
	maxExecArgs  = 16
	maxExecArg   = 256
	maxExecLabel = 4 << 10
)

// Declared returns what image declares in its labels (ExecLabel,
// preloadLabel, languageLabel), asking the engine only when the file kept
// for the image ID in the user's cache directory does not answer: a CLI
// run is one process, and over ssh each docker call costs a connection.
// An image ID is the digest of the image's config, its labels included,
// so what it declares cannot change on any engine. The file is the only
// cache: reading it costs a few system calls, nothing beside a
// container's start, where one kept in this process would be state that
// every run shares. An image the engine cannot inspect is a plain error;
// a label that is not a valid declaration a *LabelError, cached or not.
func (c *Client) Declared(ctx context.Context, image string) (Declared, error) {
	if d, cached := readExecCache(c.env, image); cached {
		return d, nil
	}
	labels, err := c.imageLabels(ctx, image)
	if err != nil {
		return Declared{}, fmt.Errorf("reading the labels of image %s: %w", image, err)
	}
	d, err := parseDeclared(labels)
	if err != nil {
		return Declared{}, &LabelError{Image: image, Err: err}
	}
	Keep(c.env, image, d)
	return d, nil
}

// parseDeclared reads ExecLabel, preloadLabel, languageLabel and
// timeFactorLabel from an image's labels as docker prints them in JSON.
func parseDeclared(labels string) (Declared, error) {
	d, err := parseProgram(labels)
	if err != nil {
		return Declared{}, err
	}
	var all map[string]string
	_ = json.Unmarshal([]byte(labels), &all) // parseProgram read it
	v, ok := all[timeFactorLabel]
	if !ok {
		return d, nil
	}
	if d.Exec == nil {
		return Declared{}, fmt.Errorf("label %s: for an interpreter or a language, not Starlark", timeFactorLabel)
	}
	f, err := strconv.ParseFloat(v, 64)
	if err == nil {
		err = limits.CheckTimeFactor(f)
	}
	if err != nil || strings.ContainsAny(v, "xX_") || f == 0 {
		return Declared{}, fmt.Errorf("label %s: must be a number from 1 to %d, at most two decimal places (got %q)", timeFactorLabel, limits.MaxTimeFactor, v)
	}
	d.TimeFactor = f
	return d, nil
}

// parseProgram reads ExecLabel, preloadLabel and languageLabel: a preload
// is a JSON array of module names for the image's Python interpreter
// (runargs.CheckPreload).
func parseProgram(labels string) (Declared, error) {
	exec, err := parseExecLabel(labels)
	if err != nil {
		return Declared{}, err
	}
	var all map[string]string
	_ = json.Unmarshal([]byte(labels), &all) // parseExecLabel read it
	if lang, ok := all[languageLabel]; ok {
		if exec != nil {
			return Declared{}, fmt.Errorf("labels %s and %s: an image declares one", ExecLabel, languageLabel)
		}
		if _, ok := all[preloadLabel]; ok {
			return Declared{}, fmt.Errorf("label %s: for an interpreter (%s), not a language", preloadLabel, ExecLabel)
		}
		return parseLanguage(lang)
	}
	v, ok := all[preloadLabel]
	if !ok {
		return Declared{Exec: exec}, nil
	}
	var modules []string
	dec := json.NewDecoder(strings.NewReader(v))
	if len(v) > maxExecLabel || !strings.HasPrefix(strings.TrimSpace(v), "[") || dec.Decode(&modules) != nil ||
		dec.InputOffset() != int64(len(strings.TrimRight(v, " \t\r\n"))) {
		return Declared{}, fmt.Errorf("label %s: must be a JSON array of module names (got %q)", preloadLabel, v)
	}
	if err := runargs.CheckPreload(modules, exec); err != nil {
		return Declared{}, fmt.Errorf("label %s: %w", preloadLabel, err)
	}
	return Declared{Exec: exec, Preload: modules}, nil
}

// parseLanguage reads languageLabel's value: its run and compile
// commands are held to an exec label's bounds, its source to a file
// name's rules, as the runner's own arguments are (runargs.Args).
func parseLanguage(v string) (Declared, error) {
	bad := func(why string) (Declared, error) {
		return Declared{}, fmt.Errorf("label %s: %s (got %q)", languageLabel, why, v)
	}
	if len(v) > maxExecLabel {
		return bad(fmt.Sprintf("must be at most %d bytes", maxExecLabel))
	}
	var lang struct {
		Source  string   `json:"source"`
		Compile []string `json:"compile"`
		Run     []string `json:"run"`
	}
	if err := strict.Decode([]byte(v), &lang); err != nil {
		return bad(`must be a JSON object of "source", "compile" and "run": ` + err.Error())
	}
	if err := checkCommand(lang.Run); err != nil {
		return bad("run: " + err.Error())
	}
	if lang.Compile != nil {
		if err := checkCommand(lang.Compile); err != nil {
			return bad("compile: " + err.Error())
		}
	}
	d := Declared{Exec: lang.Run, Source: lang.Source, Compile: lang.Compile}
	args := runargs.Args{Exec: d.Exec, Source: d.Source, Compile: d.Compile}
	if err := args.CheckProgram(); err != nil {
		return bad(err.Error())
	}
	return d, nil
}

// checkCommand holds a declared command line to an exec label's bounds:
// 1 to maxExecArgs words of 1 to maxExecArg bytes of UTF-8 without NUL.
func checkCommand(cmd []string) error {
	if len(cmd) == 0 || len(cmd) > maxExecArgs {
		return fmt.Errorf("must name 1 to %d arguments", maxExecArgs)
	}
	for _, a := range cmd {
		if a == "" || len(a) > maxExecArg || strings.ContainsRune(a, 0) || !utf8.ValidString(a) {
			return fmt.Errorf("each argument must be 1 to %d bytes of UTF-8 without NUL", maxExecArg)
		}
	}
	return nil
}

// parseExecLabel reads ExecLabel from an image's labels as docker prints
// them in JSON (null for none): absent is nil; present, it must be a JSON
// array of 1 to maxExecArgs non-empty strings of at most maxExecArg bytes,
// without NUL, and nothing after it.
func parseExecLabel(labels string) ([]string, error) {
	var all map[string]string
	if err := json.Unmarshal([]byte(labels), &all); err != nil {
		return nil, fmt.Errorf("its labels are not a JSON object: %w", err)
	}
	v, ok := all[ExecLabel]
	if !ok {
		return nil, nil
	}
	bad := func(why string) error {
		return fmt.Errorf("label %s: %s (got %q)", ExecLabel, why, v)
	}
	if len(v) > maxExecLabel {
		return nil, bad(fmt.Sprintf("must be at most %d bytes", maxExecLabel))
	}
	var exec []string
	dec := json.NewDecoder(strings.NewReader(v))
	if !strings.HasPrefix(strings.TrimSpace(v), "[") || dec.Decode(&exec) != nil || dec.InputOffset() != int64(len(strings.TrimRight(v, " \t\r\n"))) {
		return nil, bad("must be a JSON array of strings")
	}
	if err := checkCommand(exec); err != nil {
		return nil, bad(err.Error())
	}
	return exec, nil
}

// execCachePath is where image's declaration is kept between processes:
// the profile's directory, one file per image ID.
func execCachePath(env []string, image string) (string, error) {
	base, err := cacheDir(env)
	if err != nil {
		return "", err
	}
	return filepath.Join(base, cacheDirName, "exec-"+strings.TrimPrefix(image, "sha256:")), nil
}

// readExecCache returns the labels kept for image, if a file of this
// user's, not writable by others, holds them. What it says is checked as
// a label read from the engine is: the file changes nothing a caller
// could not choose with Exec.
func readExecCache(env []string, image string) (Declared, bool) {
	path, err := execCachePath(env, image)
	if err != nil || checkOwned(filepath.Dir(path), true) != nil || checkOwned(path, false) != nil {
		return Declared{}, false
	}
	f, err := os.Open(path)
	if err != nil {
		return Declared{}, false
	}
	defer f.Close()
	// Bounded: a file grown past any label this process writes is not read
	// whole; it is ignored and the engine asked.
	b, err := io.ReadAll(io.LimitReader(f, 2*maxExecLabel+129))
	if err != nil || len(b) > 2*maxExecLabel+128 {
		return Declared{}, false
	}
	d, err := parseDeclared(string(b))
	if err != nil {
		// A damaged file: the engine's labels decide, and are kept anew.
		return Declared{}, false
	}
	return d, true
}

// Keep keeps d as image's declaration for later runs and processes, as
// the labels it was read from would say it, in the cache directory that
// SeccompFile made. A failure only costs the next run an inspect.
func Keep(env []string, image string, d Declared) {
	path, err := execCachePath(env, image)
	if err != nil || checkOwned(filepath.Dir(path), true) != nil {
		return
	}
	labels := map[string]string{}
	if d.Exec != nil {
		v, _ := json.Marshal(d.Exec)
		labels[ExecLabel] = string(v)
	}
	if d.Preload != nil {
		v, _ := json.Marshal(d.Preload)
		labels[preloadLabel] = string(v)
	}
	if d.Source != "" {
		v, _ := json.Marshal(map[string]any{"source": d.Source, "compile": d.Compile, "run": d.Exec})
		labels[languageLabel] = string(v)
		delete(labels, ExecLabel)
	}
	if d.TimeFactor != 0 {
		labels[timeFactorLabel] = strconv.FormatFloat(d.TimeFactor, 'f', -1, 64)
	}
	b, _ := json.Marshal(labels)
	_ = replaceFile(path, b)
}

// The labels of an operator's build (scripts/build-image.sh --with,
// --lock, --wheels): the SHA-256 of the Debian lock and of the
// requirements file the image was built from, "sha256:<64 hex>" each.
const (
	DebianLockLabel   = "io.synapse-isolation.debian-lock"
	RequirementsLabel = "io.synapse-isolation.requirements"
)

// Contents is what an image's labels say it carries beyond its kind's
// own packages: DebianLockLabel's and RequirementsLabel's values, each ""
// where the label is absent.
func (c *Client) Contents(ctx context.Context, image string) (lock, requirements string, err error) {
	labels, err := c.imageLabels(ctx, image)
	if err != nil {
		return "", "", err
	}
	var all map[string]string
	if err := json.Unmarshal([]byte(labels), &all); err != nil {
		return "", "", fmt.Errorf("the labels of image %s: %v", image, err)
	}
	return all[DebianLockLabel], all[RequirementsLabel], nil
}
