package judge

import (
	"math/rand/v2"
	"testing"

	"gotest.tools/v3/assert"
)

type matchCase struct {
	name   string
	mode   Mode
	expect string
	out    string
	line   int64 // 0: matches
}

var cases = []matchCase{
	// The brief's examples.
	{"trailing space and CR, no final newline", Lines, "1 2\n3\n", "1 2   \r\n3", 0},
	{"trailing empty lines", Lines, "1 2\n3\n", "1 2\n3\n\n\n", 0},
	{"inner whitespace counts", Lines, "1 2\n3\n", "1  2\n3\n", 1},
	{"inner empty line counts", Lines, "1 2\n3\n", "1 2\n\n3\n", 2},
	{"leading whitespace counts", Lines, "1 2\n3\n", " 1 2\n3", 1},
	{"empty both", Lines, "", "", 0},
	{"empty output, blank expect", Lines, " \n\t\n\r\n\n", "", 0},
	{"blank output, empty expect", Lines, "", "\n \n\r\n\v\f\n  ", 0},
	{"default mode is lines", "", "1 2\n3\n", "1 2 \n3", 0},

	// Lines: trailing whitespace, on either side.
	{"CRLF expect", Lines, "a\r\nb\r\n", "a\nb", 0},
	{"trailing mixed space", Lines, "x\n", "x\v\f\t \r", 0},
	{"inner whitespace kept", Lines, "a \tb", "a \tb  \t", 0},
	{"tab is not space", Lines, "a\tb", "a b", 1},
	{"space then end of expected line", Lines, "a b", "a \n", 1},
	{"line continues past expected", Lines, "a", "a b", 1},
	{"case counts", Lines, "a", "A", 1},
	{"prefix of the line", Lines, "abc", "ab", 1},
	{"prefix of the line, then more lines", Lines, "abc\nd", "ab\nd", 1},
	{"longer last line", Lines, "ab", "abc", 1},

	// Lines: output that ends early or goes on.
	{"missing line", Lines, "a\nb", "a\n", 2},
	{"missing line, blank tail", Lines, "a\nb", "a\n \n\t\n", 2},
	{"nothing written", Lines, "a\n", "", 1},
	{"only blank written", Lines, "a\n", "\n\n  \n", 1},
	{"extra line", Lines, "a", "a\nb", 2},
	{"extra line after blanks", Lines, "a", "a\n\n  \n\t\nb", 2},
	{"text for empty expect", Lines, "", "x", 1},
	{"text after blanks for empty expect", Lines, "\n\n", "\n\nx", 1},
	{"text after a blank line with spaces", Lines, "", "  \n a", 1},

	// Lines: runs of empty lines, settled by what follows.
	{"inner empty lines match", Lines, "a\n\n\nb\n", "a\n \n\t\nb", 0},
	{"inner empty lines then stop", Lines, "a\n\n\nb", "a\n\n\n", 2},
	{"too many empty lines", Lines, "a\n\nb", "a\n\n\n\nb", 3},
	{"too few empty lines", Lines, "a\n\n\nb", "a\n\nb", 3},
	{"no empty line where one is expected", Lines, "a\n\nb", "a\nb", 2},
	{"leading empty lines", Lines, "\n\na", "\n \na  ", 0},
	{"leading empty lines missing", Lines, "\n\na", "a", 1},
	{"leading whitespace after empty lines", Lines, "\n\n a", "\n\n a", 0},
	{"leading whitespace differs after empty lines", Lines, "\n\n a", "\n\n\ta", 3},

	// Exact.
	{"exact equal", Exact, "1 2\n3\n", "1 2\n3\n", 0},
	{"exact empty", Exact, "", "", 0},
	{"exact missing final newline", Exact, "1 2\n3\n", "1 2\n3", 2},
	{"exact ends at a line start", Exact, "a\nb\n", "a\n", 2},
	{"exact extra newline", Exact, "1 2\n3\n", "1 2\n3\n\n", 3},
	{"exact extra bytes", Exact, "a\n", "a\nb", 2},
	{"exact trailing space", Exact, "1 2\n3\n", "1 2 \n3\n", 1},
	{"exact CRLF", Exact, "a\n", "a\r\n", 1},
	{"exact nothing written", Exact, "a", "", 1},
	{"exact output for empty expect", Exact, "", "a", 1},
	{"exact differs on line 2", Exact, "a\nb", "a\nc", 2},
}

// writes feeds out to m in chunks of the given sizes, checking that every
// Write reports all of it written.
func writes(t testing.TB, m *Matcher, out []byte, sizes func() int) {
	t.Helper()
	for len(out) > 0 {
		n := min(sizes(), len(out))
		got, err := m.Write(out[:n])
		if got != n || err != nil {
			t.Fatalf("Write(%d bytes) = %d, %v", n, got, err)
		}
		out = out[n:]
	}
}

// chunkings are the ways every case is written: whole, byte by byte and in
// random chunks with a fixed seed.
func chunkings(seed uint64) map[string]func() int {
	rng := rand.New(rand.NewPCG(seed, 1))
	return map[string]func() int{
		"whole":    func() int { return 1 << 30 },
		"bytes":    func() int { return 1 },
		"random2":  func() int { return 1 + rng.IntN(2) },
		"random5":  func() int { return 1 + rng.IntN(5) },
		"random64": func() int { return 1 + rng.IntN(64) },
	}
}

func TestMatcher(t *testing.T) {
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for how, sizes := range chunkings(uint64(i)) {
				m := NewMatcher([]byte(c.expect), c.mode)
				writes(t, m, []byte(c.out), sizes)
				assert.Equal(t, m.Line(), c.line, "written %s", how)
				assert.Equal(t, m.Match(), c.line == 0, "written %s", how)
			}
			// The reference agrees with the table, so the property test's
			// oracle is checked too.
			assert.Equal(t, refLine(c.expect, c.out, c.mode), c.line, "reference")
		})
	}
}

func TestMatchAndLineDoNotEndTheOutput(t *testing.T) {
	m := NewMatcher([]byte("a\nb\n"), Lines)
	m.Write([]byte("a\n"))
	assert.Equal(t, m.Line(), int64(2), "asked early: b is missing")
	m.Write([]byte("b"))
	assert.Assert(t, m.Match())
	m.Write([]byte("\nc"))
	assert.Equal(t, m.Line(), int64(3))
	m.Write([]byte("\n\n"))
	assert.Equal(t, m.Line(), int64(3), "the first difference stays put")
}

func TestCheckMode(t *testing.T) {
	for _, ok := range []Mode{"", Lines, Exact} {
		assert.NilError(t, CheckMode(ok))
	}
	err := CheckMode("Lines")
	assert.ErrorContains(t, err, `"Lines"`)
	assert.ErrorContains(t, err, `"lines"`)
	assert.ErrorContains(t, err, `"exact"`)
}

func TestNewMatcherPanicsOnUnknownMode(t *testing.T) {
	defer func() { assert.Assert(t, recover() != nil) }()
	NewMatcher(nil, "token")
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"":                   "",
		"\n \n\t":            "",
		"a":                  "a",
		"a \r\n\nb\t\n\n \n": "a\n\nb",
		"\n a \n":            "\n a",
	} {
		got := normalize([]byte(in))
		assert.Equal(t, string(got), want, "normalize(%q)", in)
		assert.Assert(t, cap(got) <= len(in), "normalize(%q) holds at most len(expect)", in)
	}
}
