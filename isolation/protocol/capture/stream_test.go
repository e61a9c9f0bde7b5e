package capture

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// numbered is n numbered lines, "line 1\n" to "line n\n".
func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// TestStreamAtEveryChunkBoundary: whatever the chunks, one byte at a time
// or whole, a stream keeps the same head and tail and counts every byte.
func TestStreamAtEveryChunkBoundary(t *testing.T) {
	for _, n := range []int{0, 1, 9, 10, 11, 19, 20, 21, 35, 100} {
		in := strings.Repeat("abcdefghij", 10)[:n]
		whole := NewStream(10)
		_, _ = whole.WriteString(in)
		bytewise := NewStream(10)
		_, err := io.Copy(bytewise, iotest.OneByteReader(strings.NewReader(in)))
		assert.NilError(t, err)
		for _, share := range []int{5, 10} { // a share is never over the stream's limit
			a, b := whole.keep(share), bytewise.keep(share)
			assert.Check(t, is.DeepEqual(a, b), "n=%d share=%d", n, share)
			assert.Check(t, is.Equal(a.Bytes, int64(n)))
			assert.Check(t, is.Equal(a.Truncated, n > share))
			assert.Check(t, len(a.Text) <= share, "n=%d share=%d: %q", n, share, a.Text)
			if n <= share {
				assert.Check(t, is.Equal(a.Text, in))
			}
		}
	}
}

// TestStreamKeepsFirstAndLastLine: 200 KB of numbered lines keep their
// first and last line whole, around one marker line naming exactly the
// bytes dropped.
func TestStreamKeepsFirstAndLastLine(t *testing.T) {
	in := numbered(20000)
	assert.Assert(t, len(in) > 200_000/2)
	s := NewStream(64 << 10)
	_, err := io.Copy(s, iotest.OneByteReader(strings.NewReader(in)))
	assert.NilError(t, err)
	out, errOut := Keep(64<<10, s, NewStream(64<<10))
	assert.Check(t, is.Equal(errOut, Kept{}))
	assert.Check(t, out.Truncated)
	assert.Check(t, is.Equal(out.Bytes, int64(len(in))))
	assert.Check(t, len(out.Text) <= 64<<10)
	assert.Check(t, strings.HasPrefix(out.Text, "line 1\nline 2\n"))
	assert.Check(t, strings.HasSuffix(out.Text, "\nline 20000\n"))
	head, tail, ok := strings.Cut(out.Text, "[... ")
	assert.Assert(t, ok)
	var dropped int
	_, err = fmt.Sscanf(tail, "%d bytes dropped ...]\n", &dropped)
	assert.NilError(t, err)
	tail = tail[strings.Index(tail, "\n")+1:]
	assert.Check(t, is.Equal(len(head)+len(tail)+dropped, len(in)), "the marker counts exactly what is missing")
	assert.Check(t, strings.HasPrefix(in, head) && strings.HasSuffix(in, tail))
}

// TestStreamShortAfterLongHead: a stream a little over the share, whose
// end is partly in the head, keeps its true end.
func TestStreamShortAfterLongHead(t *testing.T) {
	s := NewStream(100)
	in := numbered(30) // 231 bytes: the head holds 100, the ring 100, 31 dropped between
	_, _ = s.WriteString(in)
	k := s.keep(80)
	assert.Check(t, strings.HasSuffix(k.Text, "line 30\n"), k.Text)
	assert.Check(t, strings.HasPrefix(k.Text, "line 1\n"), k.Text)
	s = NewStream(100)
	in = numbered(15) // 111 bytes: head 100, ring 11, none dropped
	_, _ = s.WriteString(in)
	k = s.keep(60)
	assert.Check(t, strings.HasSuffix(k.Text, "line 15\n"), k.Text)
	assert.Check(t, len(k.Text) <= 60)
}

func TestStreamTextIsValidUTF8(t *testing.T) {
	s := NewStream(64)
	_, _ = s.WriteString(strings.Repeat("é", 100) + "\xff")
	k := s.keep(41)
	assert.Check(t, utf8.ValidString(k.Text), "%q", k.Text)
	assert.Check(t, len(k.Text) <= 41)
	s = NewStream(8)
	_, _ = s.WriteString("a\xffb")
	assert.Check(t, is.Equal(s.keep(3).Text, "a"), "U+FFFD is 3 bytes: trimmed back to the share")
	assert.Check(t, is.Equal(s.keep(5).Text, "a\uFFFDb"))
}

func TestShares(t *testing.T) {
	const m = 64 << 10
	for _, tc := range []struct {
		a, b   int64
		sa, sb int
	}{
		{0, 0, 0, 0},
		{m, 0, m, 0},
		{m + 1, 0, m, 0},
		{1000, 200000, 1000, m - 1000},
		{200000, 1000, m - 1000, 1000},
		{200000, 200000, m / 2, m / 2},
		{40000, 30000, m - 30000, 30000},
	} {
		sa, sb := Shares(m, tc.a, tc.b)
		assert.Check(t, is.Equal(sa, tc.sa), "%d %d", tc.a, tc.b)
		assert.Check(t, is.Equal(sb, tc.sb), "%d %d", tc.a, tc.b)
		assert.Check(t, sa+sb <= m)
	}
}

// TestKeepTracebackAfterFlood: 100 KB on stdout then a traceback on
// stderr keeps the traceback whole, and stdout's last line.
func TestKeepTracebackAfterFlood(t *testing.T) {
	out, errOut := NewStream(64<<10), NewStream(64<<10)
	_, _ = out.WriteString(numbered(12000))
	tb := "Traceback (most recent call last):\n  File \"/tmp/work/main\", line 3, in <module>\nValueError: the end\n"
	_, _ = errOut.WriteString(tb)
	ko, ke := Keep(64<<10, out, errOut)
	assert.Check(t, is.Equal(ke.Text, tb))
	assert.Check(t, !ke.Truncated)
	assert.Check(t, ko.Truncated)
	assert.Check(t, strings.HasSuffix(ko.Text, "line 12000\n"))
	assert.Check(t, len(ko.Text)+len(ke.Text) <= 64<<10)
}

// TestStreamCountsWhatIsNotUTF8: bytes that are not UTF-8 are counted as
// they are replaced, one U+FFFD a run, whole or in a truncated stream's
// head and tail; a U+FFFD the program wrote itself is text, not counted.
func TestStreamCountsWhatIsNotUTF8(t *testing.T) {
	for _, tc := range []struct {
		in       string
		share    int
		text     string
		replaced int64
	}{
		{"\xfa\xfb\xfc\xfd\xfe\xffok", 100, "\uFFFDok", 6},
		{"a\xffb\xfe\xfdc", 100, "a\uFFFDb\uFFFDc", 3},
		{"\uFFFD is text", 100, "\uFFFD is text", 0},
		{"plain", 100, "plain", 0},
		// The tail's last two bytes would take three as U+FFFD, past the
		// tail's room: left out, as a character at the bound is, but
		// counted.
		{"\xff" + strings.Repeat("x", 60) + "\n" + strings.Repeat("y", 60) + "\xfe\xfe", 40, "", 3},
		{"\xff" + strings.Repeat("x", 60) + "\n" + strings.Repeat("y", 60) + "\xfeyyy", 40, "", 2},
	} {
		s := NewStream(64)
		_, _ = s.WriteString(tc.in)
		k := s.keep(tc.share)
		if tc.text != "" {
			assert.Check(t, is.Equal(k.Text, tc.text))
		}
		assert.Check(t, is.Equal(k.Replaced, tc.replaced), "%q", tc.in)
		assert.Check(t, utf8.ValidString(k.Text) && len(k.Text) <= tc.share, "%q", k.Text)
	}
}
