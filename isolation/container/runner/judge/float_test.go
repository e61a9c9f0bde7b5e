package judge

import (
	"bytes"
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// floatLine runs a Float over out, written whole and byte by byte, and
// returns the line of the first difference (0: a match); both writes must
// agree.
func floatLine(t *testing.T, expect, out string, abs, rel float64) int64 {
	t.Helper()
	whole := NewFloat([]byte(expect), abs, rel)
	whole.Write([]byte(out))
	bytewise := NewFloat([]byte(expect), abs, rel)
	for i := range len(out) {
		bytewise.Write([]byte{out[i]})
	}
	assert.Equal(t, whole.Line(), bytewise.Line(), "expect %q out %q: written whole and byte by byte", expect, out)
	assert.Equal(t, whole.Match(), whole.Line() == 0)
	return whole.Line()
}

func TestFloat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		expect, out string
		abs, rel    float64
		line        int64
	}{
		{"1.0 2.0\n", "1.000000001 1.999999999\n", 1e-6, 0, 0},
		{"3.141592653589793\n", "3.141592654", 1e-9, 0, 0},     // 1e-9 differences accepted
		{"3.141592653589793\n", "3.142", 1e-9, 0, 1},           // 1e-3 ones refused
		{"1000000.0\n", "1000001\n", 0, 1e-6, 0},               // relative
		{"1000000.0\n", "1000002\n", 0, 1e-6, 1},               //
		{"1000000\n", "1000001\n", 0, 1e-6, 1},                 // two integers exactly, whatever the epsilons
		{"100\n", "101", 1e9, 1e9, 1},                          //
		{"9007199254740993\n", "9007199254740992", 1e-6, 0, 1}, // one float64, two integers
		{"123456789012345678901234567890\n", "123456789012345678901234567891", 1e-6, 1e-6, 1},
		{"123456789012345678901234567890\n", "+000123456789012345678901234567890", 0, 0, 0},
		{"007 +5 -0 0\n", "7 5 0 -000", 0, 0, 0},            // an integer's spellings
		{"-5\n", "5", 0, 0, 1},                              //
		{"3\n", "3.0000001", 1e-6, 0, 0},                    // an integer and a decimal: within the epsilons
		{"3.0\n", "4", 1e-6, 0, 1},                          //
		{"1 2\n3 4\n", "1 2\n3 5\n", 1e-6, 0, 2},            // the line of the difference
		{"1 2\n", "1   2  \t\r\n\n\n", 0, 0, 0},             // spacing, CRs and trailing empty lines
		{"1\n\n2\n", "1\n\n2", 0, 0, 0},                     // inner empty lines count
		{"1\n\n2\n", "1\n2", 0, 0, 2},                       //
		{"1\n2\n", "1\n\n2", 0, 0, 2},                       //
		{"1 2\n", "1\n2\n", 0, 0, 1},                        // line breaks count
		{"1\n2\n", "1 2\n", 0, 0, 1},                        //
		{"yes 1.5\n", "yes 1.5000001", 1e-6, 0, 0},          // words exactly
		{"yes 1.5\n", "YES 1.5", 1e-6, 0, 1},                //
		{"1.5\n", "abc", 1e9, 1e9, 1},                       // no number where one is expected
		{"1.5\n", "0x1.8p0", 1e9, 1e9, 1},                   // hex is not decimal
		{"1.5\n", "1_5", 1e9, 1e9, 1},                       //
		{"nan\n", "NaN", 0, 0, 0},                           // NaN only itself
		{"nan\n", "1", 1e300, 1e300, 1},                     //
		{"1\n", "nan", 1e300, 1e300, 1},                     //
		{"inf -inf\n", "Infinity -INF", 0, 0, 0},            // infinities only themselves
		{"inf\n", "1e308", 1e300, 1e300, 1},                 //
		{"1e308\n", "inf", 1e300, 1e300, 1},                 //
		{"1e999\n", "1e1000", 0, 0, 0},                      // past the range: both infinite
		{"-0\n", "0", 0, 0, 0},                              //
		{".5 5. +5\n", "0.5 5 5", 0, 0, 0},                  // spellings of a number
		{"1\n2\n3\n", "1\n2\n", 0, 0, 3},                    // ends early: the first missing line
		{"1\n2\n3\n", "1\n2\n\n\n", 0, 0, 3},                //
		{"1\n", "1\n2\n", 0, 0, 2},                          // extra output
		{"1\n", "1\n\n\n2\n", 0, 0, 2},                      // an empty line followed by text counts
		{"", "", 0, 0, 0},                                   //
		{"", "\n \n", 0, 0, 0},                              //
		{"", "0", 0, 0, 1},                                  //
		{"0", "", 0, 0, 1},                                  //
		{"abc\n", "abcd", 0, 0, 1},                          // a longer word
		{"1\n", "1" + strings.Repeat("0", 2000), 1e9, 0, 1}, // a number past its bound
		{"1\n", "1." + strings.Repeat("0", 900), 0, 0, 0},   // a long number within it
	} {
		got := floatLine(t, tc.expect, tc.out, tc.abs, tc.rel)
		assert.Check(t, got == tc.line, "expect %.40q out %.40q abs %g rel %g: line %d, want %d", tc.expect, tc.out, tc.abs, tc.rel, got, tc.line)
	}
}

// referenceFloat is Float's rule on whole texts: lines of tokens, the
// empty ones at the end dropped, compared line by line.
func referenceFloat(expect, out string, abs, rel float64) int64 {
	lines := func(s string) [][]string {
		var ls [][]string
		for _, l := range strings.Split(s, "\n") {
			ls = append(ls, strings.FieldsFunc(l, func(r rune) bool { return r < 128 && isSpace(byte(r)) }))
		}
		for len(ls) > 0 && len(ls[len(ls)-1]) == 0 {
			ls = ls[:len(ls)-1]
		}
		return ls
	}
	e, o := lines(expect), lines(out)
	f := &Float{abs: abs, rel: rel}
	for i := 0; i < max(len(e), len(o)); i++ {
		if i >= len(e) || i >= len(o) || len(e[i]) != len(o[i]) {
			return int64(i + 1)
		}
		for j := range e[i] {
			if !f.same([]byte(o[i][j]), []byte(e[i][j])) {
				return int64(i + 1)
			}
		}
	}
	return 0
}

// TestFloatAgreesWithItsReference: random texts of numbers, words,
// spaces and empty lines, compared by Float as a stream and by the rule
// on whole texts.
func TestFloatAgreesWithItsReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(1))
	pieces := []string{"1", "1.0", "1.0000001", "2", "-1", "01", "9007199254740993", "9007199254740992", "x", "nan", "inf", " ", "  ", "\t", "\n", "\n", "\r\n"}
	text := func() string {
		var b strings.Builder
		for range rng.Intn(12) {
			b.WriteString(pieces[rng.Intn(len(pieces))])
			if rng.Intn(3) == 0 {
				b.WriteString(" ")
			}
		}
		return b.String()
	}
	for range 20000 {
		e, o := text(), text()
		if rng.Intn(3) == 0 {
			o = e
		}
		want := referenceFloat(e, o, 1e-6, 0)
		got := floatLine(t, e, o, 1e-6, 0)
		if got != want {
			t.Fatalf("expect %q out %q: line %d, the reference says %d", e, o, got, want)
		}
	}
}

func TestNumberSyntax(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"0", "-0", "+1", "1.", ".1", "1e5", "1E+5", "1.5e-5", "NaN", "-inf", "+Infinity", "1e99999"} {
		v, ok := number([]byte(s))
		assert.Check(t, ok, s)
		want, _ := strconv.ParseFloat(s, 64)
		assert.Check(t, v == want || math.IsNaN(v) && math.IsNaN(want), s)
	}
	for _, s := range []string{"", ".", "e5", "1e", "1e+", "--1", "0x10", "1_0", "1.2.3", "infinit", "nan1", "1,5", "١"} {
		_, ok := number([]byte(s))
		assert.Check(t, !ok, s)
	}
}

// BenchmarkCompare writes the same 16 MiB of matching numeric output, in
// 32 KiB chunks, through the Lines matcher and through Float, for a
// paired measure of what a float comparison costs:
// go test ./isolation/container/runner/judge -run '^$' -bench Compare -count 5.
func BenchmarkCompare(b *testing.B) {
	var expect, out bytes.Buffer
	for i := 0; expect.Len() < 16<<20; i++ {
		fmt.Fprintf(&expect, "%d %.6f\n", i, float64(i)/7)
		fmt.Fprintf(&out, "%d %.6f \r\n", i, float64(i)/7)
	}
	data := out.Bytes()
	for _, mode := range []string{"lines", "float"} {
		b.Run(mode, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				var m interface {
					Write([]byte) (int, error)
					Match() bool
				} = NewMatcher(expect.Bytes(), Lines)
				if mode == "float" {
					m = NewFloat(expect.Bytes(), 1e-6, 0)
				}
				for p := data; len(p) > 0; {
					n := min(32<<10, len(p))
					m.Write(p[:n])
					p = p[n:]
				}
				if !m.Match() {
					b.Fatal("no match")
				}
			}
		})
	}
}
