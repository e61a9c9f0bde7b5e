package cli

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/synapse-lang/synapse-isolation/isolation"
	"github.com/synapse-lang/synapse-isolation/isolation/cli/internal/batchline"
	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
)

// batchOutput writes one result line per input line, in input order or as
// they complete, and keeps the tallies. A slot is taken for every line
// read and given back in one place (deliver), once its line is written or
// known to need none.
type batchOutput struct {
	w, errw  io.Writer
	ordered  bool
	progress bool // stderr is a terminal: a running count
	status   func(isolation.Verdict) int
	slots    chan struct{} // bounds lines in flight and, ordered, held back

	mu      sync.Mutex
	counts  map[isolation.Verdict]int
	execMS  []int64
	cpuMS   int64          // the programs' CPU time, where measured
	peak    int64          // the largest memory peak, where measured
	metered bool           // some result had a usage
	pending map[int][]byte // ordered: finished lines waiting for earlier ones
	// writeErr is the first failed write of a result line: reading stops,
	// and the batch exits as the tool's own failure.
	writeErr error
	broken   chan struct{} // closed at writeErr: the scheduler stops waiting for input
	next     int           // ordered: the next line to write
	done     int
	total    int       // the requests in the input, for the progress (0: not known)
	failures []failure // the first maxFailuresShown by line, for the summary
	nFailed  int
	output   // batch's --output-dir and --force
}

// maxFailuresShown is how many failed ids the summary names.
const maxFailuresShown = 5

// failure is a result that was not ok, as the summary names it.
type failure struct {
	line    int
	id      json.RawMessage
	verdict isolation.Verdict
}

func newBatchOutput(w, errw io.Writer, ordered bool, parallel int, status func(isolation.Verdict) int) *batchOutput {
	return &batchOutput{w: w, errw: errw, ordered: ordered, progress: isTerminal(errw), status: status,
		slots: make(chan struct{}, parallel), broken: make(chan struct{}), counts: map[isolation.Verdict]int{}, pending: map[int][]byte{}, next: 1}
}

// failedOrBroken reports whether a result was not ok, or a write failed.
func (b *batchOutput) failedOrBroken() (failed, broken bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.nFailed > 0, b.writeErr != nil
}

// skip gives back a blank line's slot, writing nothing for it.
func (b *batchOutput) skip(line int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.deliver(line, nil)
}

// emit tallies a result and writes its line, or holds it back for
// --ordered.
func (b *batchOutput) emit(line int, id json.RawMessage, res isolation.Result) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	if b.outputDir != "" {
		if err := writeFiles(b.errw, filepath.Join(b.outputDir, lineDir(line, id)), b.force, res); err != nil {
			// The line's files were not delivered, and the directory
			// is the operator's to fix: the line is rejected.
			failed := errorResult(protocol.Rejected, message(err))
			failed.RunID, failed.Container, failed.Image = res.RunID, res.Container, res.Image
			res = failed
		}
	}
	out, err := encodeJSON(batchRecord{ID: id, Line: line, record: newRecord(res, b.status(res.Verdict))})
	if err != nil {
		// Every value was decoded or built as JSON already; should one
		// not encode, the line still gets a result, the tool's failure.
		res = errorResult(protocol.EngineFailure, "encoding the result: "+err.Error())
		out, _ = encodeJSON(batchRecord{ID: json.RawMessage("null"), Line: line, record: newRecord(res, b.status(res.Verdict))})
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.counts[res.Verdict]++
	b.done++
	if res.Verdict != protocol.OK {
		b.noteFailure(failure{line, id, res.Verdict})
	}
	if res.Timings.ExecMS != nil {
		b.execMS = append(b.execMS, *res.Timings.ExecMS)
	}
	if u := res.Usage; u != nil {
		b.metered = true
		if u.CPUMS != nil {
			b.cpuMS += *u.CPUMS
		}
		if u.MemoryPeakBytes != nil {
			b.peak = max(b.peak, *u.MemoryPeakBytes)
		}
	}
	b.deliver(line, out)
	if b.progress {
		done := strconv.Itoa(b.done)
		if b.total > 0 {
			done += "/" + strconv.Itoa(b.total)
		}
		fmt.Fprintf(b.errw, "\rbatch: %s done, %d ok", done, b.counts[protocol.OK])
	}
}

// noteFailure counts a failure and keeps it if it is among the first
// maxFailuresShown by line (results come in completion order); b.mu is
// held.
func (b *batchOutput) noteFailure(f failure) {
	b.nFailed++
	i, _ := slices.BinarySearchFunc(b.failures, f.line, func(x failure, line int) int { return cmp.Compare(x.line, line) })
	if i < maxFailuresShown {
		b.failures = slices.Insert(b.failures, i, f)
		b.failures = b.failures[:min(len(b.failures), maxFailuresShown)]
	}
}

// failedText names the failed requests for the summary, "" when none
// failed: `failed: "b" (timeout), 3 (program_error) and 4 more`, a line
// without an id by its number. b.mu is held.
func (b *batchOutput) failedText() string {
	if b.nFailed == 0 {
		return ""
	}
	names := make([]string, 0, len(b.failures))
	for _, f := range b.failures {
		name := "line " + strconv.Itoa(f.line)
		if len(f.id) > 0 && string(f.id) != "null" {
			name = oneLine(batchline.ShortID(f.id)) // an id may hold C1 controls; JSON leaves them raw
		}
		names = append(names, fmt.Sprintf("%s (%s)", name, f.verdict))
	}
	text := "; failed: " + strings.Join(names, ", ")
	if more := b.nFailed - len(b.failures); more > 0 {
		text += fmt.Sprintf(" and %d more", more)
	}
	return text
}

// deliver writes out, the line's result (nil: none), when its turn has
// come, and gives back the slot of each line written. b.mu is held.
func (b *batchOutput) deliver(line int, out []byte) {
	if !b.ordered {
		b.write(out)
		<-b.slots
		return
	}
	b.pending[line] = out
	for {
		o, ok := b.pending[b.next]
		if !ok {
			return
		}
		b.write(o)
		delete(b.pending, b.next)
		b.next++
		<-b.slots
	}
}

// write writes one result line; b.mu is held.
func (b *batchOutput) write(out []byte) {
	if len(out) == 0 {
		return
	}
	if _, err := b.w.Write(out); err != nil && b.writeErr == nil {
		b.writeErr = err
		close(b.broken)
	}
}

// worst is the most serious verdict seen; ok when every result was ok.
func (b *batchOutput) worst() isolation.Verdict {
	b.mu.Lock()
	defer b.mu.Unlock()
	worst := protocol.OK
	for v := range b.counts {
		if severity(v) > severity(worst) {
			worst = v
		}
	}
	return worst
}

// seen returns the verdicts counted, ok first, then the most serious.
func (b *batchOutput) seen() []isolation.Verdict {
	vs := slices.Collect(maps.Keys(b.counts))
	slices.SortFunc(vs, func(x, y isolation.Verdict) int {
		if x == protocol.OK || y == protocol.OK {
			return cmp.Compare(severity(x), severity(y))
		}
		return cmp.Compare(severity(y), severity(x))
	})
	return vs
}

// summary writes counts per verdict, the wall time, exec_ms percentiles
// and the programs' usage (CPU time in all, the largest memory peak) to
// stderr.
func (b *batchOutput) summary(wall time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.progress {
		fmt.Fprintln(b.errw)
	}
	msg := fmt.Sprintf("batch: %d results", b.done)
	if b.done == 1 {
		msg = "batch: 1 result"
	}
	for _, v := range b.seen() {
		msg += fmt.Sprintf(", %s %d", v, b.counts[v])
	}
	msg += b.failedText()
	msg += fmt.Sprintf("; wall %.1fs", wall.Seconds())
	if len(b.execMS) > 0 {
		s := slices.Clone(b.execMS)
		slices.Sort(s)
		msg += fmt.Sprintf("; exec_ms p50 %d p95 %d", percentile(s, 50), percentile(s, 95))
	}
	if b.metered {
		msg += fmt.Sprintf("; cpu_ms total %d; memory_peak_bytes max %d", b.cpuMS, b.peak)
	}
	fmt.Fprintln(b.errw, msg)
}

// percentile is the nearest-rank p-th percentile of sorted, non-empty s:
// the smallest value at least p% of the values are at or below.
func percentile(s []int64, p int) int64 {
	rank := (p*len(s) + 99) / 100 // ceil(p/100 * n)
	return s[max(rank, 1)-1]
}
