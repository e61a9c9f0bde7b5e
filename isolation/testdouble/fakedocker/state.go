package fakedocker

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Log is the name of the call log in the state directory: one call per
// line, its caller's pid, \x1e, then its arguments separated by \x1f.
const Log = "calls.log"

// stdinLog is the name of the file in the state directory that gets every
// byte a container read from its stdin.
const stdinLog = "stdin.log"

// started names the file that records the run id of every container that
// started, one a line: the daemon's record that `events` reads.
const started = "started.log"

// dieLog names the file that records each container's exit, "owner run-id
// status" a line: what a `docker events` stream of die events follows.
const dieLog = "die.log"

// endedLog names the file that records each container whose client
// ended, its run id a line.
const endedLog = "ended.log"

// lateLog names the file that holds the creates still in flight, "name
// run-id" a line (tab-separated), that the next listing lands.
const lateLog = "late.log"

// landLateCreate creates the containers whose creates were in flight: a
// listing calls it once it has printed, so the create lands after that
// listing read the state and before the next one. Renaming the file
// first claims it, so two listings at once land each create once.
func landLateCreate(state string) {
	claimed := filepath.Join(state, lateLog+".landed")
	if os.Rename(filepath.Join(state, lateLog), claimed) != nil {
		return
	}
	b, _ := os.ReadFile(claimed)
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		name, runID, _ := strings.Cut(line, "\t")
		writeContainer(filepath.Join(state, "c-"+name), runID+"\t0\trunning\t")
	}
}

// Release lets the held removal of run runID's container go on (a reply
// with held).
func Release(state, runID string) error {
	return os.WriteFile(filepath.Join(state, "release-"+runID), nil, 0o600)
}

// Started returns the run ids of the containers that started, in order.
func Started(state string) []string {
	b, _ := os.ReadFile(filepath.Join(state, started))
	return strings.Fields(string(b))
}

// lines counts the lines of a file, 0 if there is none.
func lines(path string) int {
	b, _ := os.ReadFile(path)
	return strings.Count(string(b), "\n")
}

// Stdin returns every byte the fake's containers read from their stdin.
func Stdin(state string) string {
	b, _ := os.ReadFile(filepath.Join(state, stdinLog))
	return string(b)
}

// Calls returns the logged calls, whoever made them.
func Calls(state string) [][]string {
	return callsFrom(state, "")
}

// CallsFrom returns the calls made by process pid: a run's supervisor
// (the test's own process) apart from the reaper it started, which goes
// on listing on its own once a removal was left unconfirmed.
func CallsFrom(state string, pid int) [][]string {
	return callsFrom(state, strconv.Itoa(pid))
}

// callsFrom is the calls whose caller is ppid, or all of them for "".
func callsFrom(state, ppid string) [][]string {
	b, _ := os.ReadFile(filepath.Join(state, Log))
	var out [][]string
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		caller, call, _ := strings.Cut(line, "\x1e")
		if call != "" && (ppid == "" || caller == ppid) {
			out = append(out, strings.Split(call, "\x1f"))
		}
	}
	return out
}

// Containers lists the containers present in the state directory.
func Containers(state string) []string {
	m, _ := filepath.Glob(filepath.Join(state, "c-*"))
	var out []string
	for _, p := range m {
		if !strings.HasSuffix(p, ".tmp") { // a create that never completed
			out = append(out, strings.TrimPrefix(filepath.Base(p), "c-"))
		}
	}
	return out
}

// AddContainer puts a running container of another run in the state
// directory, as gc or cleanup would find it.
func AddContainer(state, name, runID, deadline, status string) error {
	return AddOwnedContainer(state, name, runID, deadline, status, "")
}

// AddOwnedContainer is AddContainer with an owner label.
func AddOwnedContainer(state, name, runID, deadline, status, owner string) error {
	return writeContainer(filepath.Join(state, "c-"+name), runID+"\t"+deadline+"\t"+status+"\t"+owner)
}

// writeContainer creates a container file whole, by rename, as the daemon
// creates a container: a fake killed halfway through a plain write would
// leave a file with no labels, which no listing by label could find.
func writeContainer(path, content string) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// ps prints one line per container whose run-id label matches the label
// filter; with --format (gc's listing) it prints every container as
// "<run id>\t<deadline>\t<state>\t<name>\t<owner>". Container IDs are
// names here.
func ps(state string, args []string) {
	f := flagValue(args, "--filter")
	for _, c := range Containers(state) {
		b, _ := os.ReadFile(filepath.Join(state, "c-"+c))
		fields := strings.SplitN(string(b), "\t", 4)
		for len(fields) < 4 {
			fields = append(fields, "")
		}
		switch {
		case flagValue(args, "--format") != "":
			fmt.Printf("%s\t%s\t%s\t%s\t%s\n", fields[0], fields[1], fields[2], c, fields[3])
		case strings.HasPrefix(f, "label="+labelRunID) && fields[0] == strings.TrimPrefix(f, "label="+labelRunID):
			fmt.Println(c)
		}
	}
}

// startedRun reports whether a container of the run named by the events
// query's label filter started.
func startedRun(state string, args []string) bool {
	b, _ := os.ReadFile(filepath.Join(state, started))
	for i, a := range args {
		if a == "--filter" && i+1 < len(args) && strings.HasPrefix(args[i+1], "label="+labelRunID) {
			id := strings.TrimPrefix(args[i+1], "label="+labelRunID)
			return strings.Contains("\n"+string(b), "\n"+id+"\n")
		}
	}
	return false
}

func appendLog(state string, args []string) {
	f, err := os.OpenFile(filepath.Join(state, Log), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	// Each call after its caller's pid (the fake's parent): see CallsFrom.
	fmt.Fprintln(f, strconv.Itoa(os.Getppid())+"\x1e"+strings.Join(args, "\x1f"))
}

func appendFile(path, s string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	f.WriteString(s)
}

func flagValue(args []string, flag string) string {
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}
