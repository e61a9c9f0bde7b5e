package relay

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/synapse-lang/synapse-isolation/isolation/protocol"
	"github.com/synapse-lang/synapse-isolation/limits"
)

// endProbe is a side's stdin that notes, as each end of its stdin (=eof,
// =end) reaches it, who the relay had seen end the test first by then.
type endProbe struct {
	rl   *Relay
	mu   sync.Mutex
	seen []string
}

func (w *endProbe) Write(b []byte) (int, error) {
	if bytes.HasPrefix(b, []byte("=eof 0\n")) || bytes.HasPrefix(b, []byte("=end 0\n")) {
		w.mu.Lock()
		w.seen = append(w.seen, fmt.Sprintf("%s: %d", bytes.TrimSpace(b), w.rl.Ends()[0].First))
		w.mu.Unlock()
	}
	return len(b), nil
}

// TestRelayNotesWhoEndedFirst: the relay notes the side whose end (its
// =shut, its =done or its run's) it saw first in each test, before it
// passes that end on: when a side reads the end of its stdin, the other
// is already noted first, so a program that crashes at the end of its
// input after the interactor's verdict can never be noted first.
func TestRelayNotesWhoEndedFirst(t *testing.T) {
	const p, i = Program, Interactor
	for _, c := range []struct {
		name  string
		drive func(rl *Relay, prog, inter *Side)
		first []int
		seen  string // what the program's stdin noted at its EOF and =end
	}{
		{"the interactor's verdict, then the program's crash", func(rl *Relay, prog, inter *Side) {
			prog.Ready(0)
			inter.Ready(0)
			inter.IO(0, []byte("1000\n"))
			prog.IO(0, []byte("1\n"))
			inter.Shut(0)
			inter.Done(0)
			prog.Shut(0)
			prog.Done(0)
		}, []int{i, -1}, "=eof 0: 1; =end 0: 1"},
		{"the program's crash, then the interactor's verdict", func(rl *Relay, prog, inter *Side) {
			prog.Ready(0)
			inter.Ready(0)
			prog.Shut(0)
			prog.Done(0)
			inter.Shut(0)
			inter.Done(0)
		}, []int{p, -1}, "=eof 0: 0; =end 0: 0"},
		{"the interactor's processes gone before its stdout's end", func(rl *Relay, prog, inter *Side) {
			prog.Ready(0)
			inter.Ready(0)
			inter.Done(0)
			prog.Done(0)
		}, []int{i, -1}, "=end 0: 1"},
		{"the interactor's run gone within the test", func(rl *Relay, prog, inter *Side) {
			prog.Ready(0)
			inter.Ready(0)
			inter.IO(0, []byte("1000\n"))
			rl.Gone(Interactor)
		}, []int{i, -1}, ""},
		{"a second test, the program first", func(rl *Relay, prog, inter *Side) {
			prog.Ready(0)
			inter.Ready(0)
			inter.Done(0)
			prog.Done(0)
			prog.Ready(1)
			inter.Ready(1)
			prog.Shut(1)
			inter.Done(1)
		}, []int{i, p}, "=end 0: 1"},
	} {
		rl := New(2)
		probe := &endProbe{rl: rl}
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); _ = rl.Side(Program).Stdin(nil)(probe) }()
		go func() { defer wg.Done(); _ = rl.Side(Interactor).Stdin(nil)(io.Discard) }()
		c.drive(rl, rl.Side(Program), rl.Side(Interactor))
		rl.Gone(Program)
		wg.Wait()
		var first []int
		for _, e := range rl.Ends() {
			first = append(first, e.First)
		}
		assert.Check(t, is.DeepEqual(first, c.first), c.name)
		assert.Check(t, is.Equal(strings.Join(probe.seen, "; "), c.seen), c.name)
	}
}

// assertEnds checks the relay's facts of each test's end.
func assertEnds(t *testing.T, rl *Relay, want []End) {
	t.Helper()
	got := rl.Ends()
	assert.Check(t, slices.Equal(got, want), "%+v, want %+v", got, want)
}

// frameCounts reads a side's stdin as the relay wrote it: its frames'
// lines, one =in line for each run of =in frames, and their bytes.
func frameCounts(t *testing.T, stream string) (lines []string, in int64) {
	r := bufio.NewReader(strings.NewReader(stream))
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF {
			return lines, in
		}
		assert.NilError(t, err)
		kind, i, n, err := protocol.ParseLiveHeader([]byte(strings.TrimSuffix(line, "\n")), protocol.LiveGo, protocol.LiveIn, protocol.LiveEOF, protocol.LiveEnd)
		assert.NilError(t, err)
		if kind == protocol.LiveIn {
			_, err := io.CopyN(io.Discard, r, int64(n))
			assert.NilError(t, err)
			in += int64(n)
			line = fmt.Sprintf("=in %d\n", i)
			if len(lines) > 0 && lines[len(lines)-1] == line {
				continue
			}
		}
		lines = append(lines, line)
	}
}

// TestRelayBoundsTheProgramsStream: what the program sends its
// interactor in a test is given up to limits.MaxInteractedOutput, in
// chunks of any size (the one that passes it cut); then the interactor's
// stdin ends and the program's test is ended (=end, which stops it),
// nothing more of it is given, and the relay notes the program cut, and
// first. The bound is a test's: the next test has its own. After the
// interactor's test is done, what the program writes goes nowhere and
// counts for nothing.
func TestRelayBoundsTheProgramsStream(t *testing.T) {
	const bound = int64(limits.MaxInteractedOutput)
	chunk := bytes.Repeat([]byte("1"), 1000) // not a divisor of the bound: one chunk passes it
	send := func(prog *Side, test int, n int64) {
		for ; n > 0; n -= int64(len(chunk)) {
			prog.IO(test, chunk[:min(n, int64(len(chunk)))])
		}
	}
	t.Run("past the bound", func(t *testing.T) {
		rl := New(2)
		got := relayed(t, rl, func(prog, inter *Side) {
			prog.Ready(0)
			inter.Ready(0)
			inter.IO(0, []byte("100\n"))
			send(prog, 0, bound+10*int64(len(chunk)))
			prog.Shut(0)
			inter.Shut(0)
			inter.Done(0)
			prog.Done(0)
		})
		lines, in := frameCounts(t, got[Interactor])
		assert.Check(t, is.Equal(in, bound))
		assert.Check(t, is.DeepEqual(lines, []string{"=go 0\n", "=in 0\n", "=eof 0\n", "=eof 0\n", "=end 0\n"}))
		lines, in = frameCounts(t, got[Program])
		assert.Check(t, is.Equal(in, int64(4)))
		assert.Check(t, is.DeepEqual(lines, []string{"=go 0\n", "=in 0\n", "=end 0\n", "=eof 0\n", "=end 0\n"}))
		assertEnds(t, rl, []End{{First: Program, Sent: bound, Cut: true}, {First: -1}})
		assert.NilError(t, rl.Broken())
	})
	t.Run("within the bound, each test", func(t *testing.T) {
		rl := New(2)
		got := relayed(t, rl, func(prog, inter *Side) {
			for i := range 2 {
				prog.Ready(i)
				inter.Ready(i)
				send(prog, i, bound)
				prog.Shut(i)
				prog.Done(i)
				inter.Done(i)
			}
		})
		_, in := frameCounts(t, got[Interactor])
		assert.Check(t, is.Equal(in, 2*bound))
		assertEnds(t, rl, []End{{First: Program, Sent: bound}, {First: Program, Sent: bound}})
	})
	t.Run("after the interactor's end", func(t *testing.T) {
		rl := New(2)
		got := relayed(t, rl, func(prog, inter *Side) {
			prog.Ready(0)
			inter.Ready(0)
			inter.Shut(0)
			inter.Done(0)
			send(prog, 0, bound+1)
			prog.Done(0)
		})
		lines, in := frameCounts(t, got[Interactor])
		assert.Check(t, is.Equal(in, int64(0)))
		assert.Check(t, is.DeepEqual(lines, []string{"=go 0\n", "=end 0\n"}))
		assertEnds(t, rl, []End{{First: Interactor}, {First: -1}})
	})
}
