package judge

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// refLines is Lines mode's normalization, done the obvious way.
func refLines(s string) []string {
	ls := strings.Split(s, "\n")
	for i := range ls {
		ls[i] = strings.TrimRight(ls[i], " \t\r\v\f")
	}
	for len(ls) > 0 && ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// refLine is what Line should return, computed from the whole output.
func refLine(expect, out string, mode Mode) int64 {
	if mode == Exact {
		if out == expect {
			return 0
		}
		i := 0
		for i < len(out) && i < len(expect) && out[i] == expect[i] {
			i++
		}
		return 1 + int64(strings.Count(out[:i], "\n"))
	}
	o, e := refLines(out), refLines(expect)
	for i := 0; ; i++ {
		switch {
		case i == len(o) && i == len(e):
			return 0
		case i == len(o) || i == len(e) || o[i] != e[i]:
			return int64(i + 1)
		}
	}
}

// TestMatcherAgainstReference compares the streaming Matcher with refLine
// on random small inputs over an alphabet that stresses whitespace and
// line handling.
func TestMatcherAgainstReference(t *testing.T) {
	const alphabet = "a \t\r\n"
	rng := rand.New(rand.NewPCG(7, 7))
	random := func() string {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	// mutate makes output that is near expect, so that matches and late
	// differences are common, not only early ones.
	mutate := func(s string) string {
		b := []byte(s)
		for range rng.IntN(3) {
			i := rng.IntN(len(b) + 1)
			switch c := alphabet[rng.IntN(len(alphabet))]; rng.IntN(3) {
			case 0:
				b = append(b[:i], append([]byte{c}, b[i:]...)...)
			case 1:
				if i < len(b) {
					b = append(b[:i], b[i+1:]...)
				}
			default:
				if i < len(b) {
					b[i] = c
				}
			}
		}
		return string(b)
	}
	n := 50000
	if testing.Short() {
		n = 5000
	}
	matched := 0
	for range n {
		expect := random()
		out := random()
		if rng.IntN(4) > 0 {
			out = mutate(expect)
		}
		for _, mode := range []Mode{Lines, Exact} {
			want := refLine(expect, out, mode)
			if want == 0 {
				matched++
			}
			for how, sizes := range chunkings(rng.Uint64()) {
				m := NewMatcher([]byte(expect), mode)
				writes(t, m, []byte(out), sizes)
				if m.Line() != want || m.Match() != (want == 0) {
					t.Fatalf("%s: expect %q, output %q written %s: Line %d, Match %v; want Line %d",
						mode, expect, out, how, m.Line(), m.Match(), want)
				}
			}
		}
	}
	assert.Assert(t, matched > n/10, "too few matching pairs (%d) to test matching", matched)
}

func FuzzMatcher(f *testing.F) {
	for _, c := range cases {
		f.Add(c.expect, c.out, c.mode == Exact, uint8(3))
	}
	f.Fuzz(func(t *testing.T, expect, out string, exact bool, chunk uint8) {
		mode := Lines
		if exact {
			mode = Exact
		}
		m := NewMatcher([]byte(expect), mode)
		writes(t, m, []byte(out), func() int { return 1 + int(chunk) })
		if want := refLine(expect, out, mode); m.Line() != want {
			t.Fatalf("%s: expect %q, output %q: Line %d, want %d", mode, expect, out, m.Line(), want)
		}
	})
}

// TestMemoryDoesNotGrowWithOutput writes 64 MiB of hostile output, built
// to keep the Matcher undecided (whitespace and empty lines whose fate
// depends on what follows), and checks that it allocates nothing past
// NewMatcher.
func TestMemoryDoesNotGrowWithOutput(t *testing.T) {
	size := 64 << 20
	if testing.Short() {
		size = 4 << 20
	}
	pattern := func(s string) []byte { return bytes.Repeat([]byte(s), (32<<10)/len(s)) }
	rng := rand.New(rand.NewPCG(3, 3))
	mixed := make([]byte, 32<<10)
	for i := range mixed {
		mixed[i] = " \n a"[rng.IntN(4)]
	}
	for _, c := range []struct {
		name   string
		expect string
		head   string
		chunk  []byte
		tail   string
		line   int64
	}{
		// Trailing whitespace and blank lines: matching all along.
		{"trailing blank lines", "a\n", "a", pattern(" \t\r\n"), "", 0},
		// A line of whitespace far longer than anything expected,
		// settled only at the end.
		{"long leading whitespace", "a b\n", "", pattern(" "), "a", 1},
		{"long trailing whitespace", "a b\n", "a", pattern(" "), "b", 1},
		// A run of empty lines far longer than expected.
		{"empty lines", "x\n\ny", "x", pattern("\n"), "y", 3},
		{"empty lines, no end", "x\n\ny", "x", pattern("\n"), "", 2},
		{"mixed", "a a\n\na", "", mixed, "", -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, mode := range []Mode{Lines, Exact} {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				m := NewMatcher([]byte(c.expect), mode)
				m.Write([]byte(c.head))
				for range size / len(c.chunk) {
					m.Write(c.chunk)
				}
				m.Write([]byte(c.tail))
				line := m.Line()
				runtime.ReadMemStats(&after)
				if mode == Lines && c.line >= 0 {
					assert.Equal(t, line, c.line)
				}
				grew := after.TotalAlloc - before.TotalAlloc
				assert.Assert(t, grew < 1<<20, "%s: %d bytes allocated for %d bytes of output", mode, grew, size)
				allocs := testing.AllocsPerRun(10, func() { m.Write(c.chunk) })
				assert.Equal(t, allocs, 0.0, "%s: Write allocates", mode)
			}
		})
	}
}

// BenchmarkMatcherLines writes 16 MiB of matching output, with trailing
// whitespace and CRLF line ends, in 32 KiB chunks.
func BenchmarkMatcherLines(b *testing.B) {
	var expect, out bytes.Buffer
	for i := 0; expect.Len() < 16<<20; i++ {
		fmt.Fprintf(&expect, "%d %d\n", i, i*7919)
		fmt.Fprintf(&out, "%d %d \r\n", i, i*7919)
		if i%100 == 0 {
			expect.WriteString("\n")
			out.WriteString("\t\n")
		}
	}
	const chunk = 32 << 10
	data := out.Bytes()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		b.StopTimer()
		m := NewMatcher(expect.Bytes(), Lines)
		b.StartTimer()
		for p := data; len(p) > 0; {
			n := min(chunk, len(p))
			m.Write(p[:n])
			p = p[n:]
		}
		if !m.Match() {
			b.Fatalf("no match at line %d", m.Line())
		}
	}
}
