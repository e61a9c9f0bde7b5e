package capture

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// Stream keeps the first and the last Limit bytes written to it and
// counts them all: a program's stdout or stderr, whose end (a traceback,
// a final answer) matters as much as its start. Like Buffer, its writes
// never fail, so a copy from a pipe keeps draining. It is safe for
// concurrent use.
type Stream struct {
	mu    sync.Mutex
	limit int
	head  []byte
	ring  []byte // the last bytes past the head, as a ring of limit bytes
	next  int    // where the ring's next byte goes once it is full
	total int64
}

// NewStream returns a stream that keeps at most limit bytes of its head
// and limit bytes of its tail.
func NewStream(limit int) *Stream { return &Stream{limit: limit} }

// Write implements io.Writer; it always reports all of p written.
func (s *Stream) Write(p []byte) (int, error) { return streamWrite(s, p) }

// WriteString is Write for strings, without a copy to []byte.
func (s *Stream) WriteString(p string) (int, error) { return streamWrite(s, p) }

func streamWrite[T []byte | string](s *Stream, p T) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(p)
	s.total += int64(n)
	if room := s.limit - len(s.head); room > 0 {
		k := min(room, len(p))
		s.head = append(s.head, p[:k]...)
		p = p[k:]
	}
	if len(p) > s.limit {
		p = p[len(p)-s.limit:] // only its last limit bytes can stay
	}
	for len(p) > 0 {
		if len(s.ring) < s.limit {
			k := min(s.limit-len(s.ring), len(p))
			s.ring = append(s.ring, p[:k]...)
			p = p[k:]
			continue
		}
		k := copy(s.ring[s.next:], p)
		s.next = (s.next + k) % s.limit
		p = p[k:]
	}
	return n, nil
}

// Total is the number of bytes written, kept or not.
func (s *Stream) Total() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// Kept is what a stream keeps within its share of the output bound.
type Kept struct {
	// Text is valid UTF-8 and at most the share long: the whole stream,
	// or its head and its tail around a marker line naming the bytes
	// dropped.
	Text string
	// Bytes is the stream's total, kept or not.
	Bytes int64
	// Truncated is true exactly when Bytes is over the stream's share.
	Truncated bool
	// Replaced is how many bytes of what Text keeps were not UTF-8: each
	// run of them is one U+FFFD in Text, where it fits (a run whose three
	// bytes of U+FFFD would pass the share is left out, and counted). Zero
	// when Text is the bytes as written (or as cut for the bound).
	Replaced int64
}

// Shares splits a bound between two streams of a and b bytes: both whole
// when they fit together; else a stream within half the bound is kept
// whole and the other gets the rest; else half each. The host checks a
// response by the same split.
func Shares(bound int, a, b int64) (int, int) {
	half := int64(bound / 2)
	switch {
	case a+b <= int64(bound):
		return int(a), int(b)
	case a <= half:
		return int(a), bound - int(a)
	case b <= half:
		return bound - int(b), int(b)
	}
	return bound / 2, bound - bound/2
}

// Keep is what streams out and errOut keep within bound, split by Shares
// (errOut may be nil: a Starlark program has no stderr).
func Keep(bound int, out, errOut *Stream) (Kept, Kept) {
	var errTotal int64
	if errOut != nil {
		errTotal = errOut.Total()
	}
	so, se := Shares(bound, out.Total(), errTotal)
	ko := out.keep(so)
	if errOut == nil {
		return ko, Kept{}
	}
	return ko, errOut.keep(se)
}

// keep is the stream within share bytes: whole if it fits, else its head
// and tail around the marker, each end cut at a line where one is near,
// so the first and last lines stay whole.
func (s *Stream) keep(share int) Kept {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := Kept{Bytes: s.total, Truncated: s.total > int64(share)}
	// The stream's end: head and ring together while nothing between
	// them was dropped, else the ring, which then holds limit bytes.
	end := s.tail()
	if int64(len(s.head)+len(end)) == s.total {
		end = append(append([]byte{}, s.head...), end...)
	}
	if !k.Truncated {
		k.Text, k.Replaced = valid(string(end), share)
		return k
	}
	// Room for the two ends beside the marker at its longest: dropped is
	// fewer bytes than the total, and a newline may go before it.
	room := share - len(marker(s.total)) - 1
	if room <= 0 {
		return k
	}
	h := head(s.head, (room+1)/2)
	t := tailFrom(end, room-len(h))
	dropped := s.total - int64(len(h)) - int64(len(t))
	sep := ""
	if len(h) > 0 && h[len(h)-1] != '\n' {
		sep = "\n" // the marker is a line of its own
	}
	vh, rh := valid(string(h), len(h))
	vt, rt := valid(string(t), len(t))
	k.Text, k.Replaced = vh+sep+marker(dropped)+vt, rh+rt
	return k
}

// tail is the bytes written past the head that the ring kept, in order.
func (s *Stream) tail() []byte {
	if len(s.ring) < s.limit {
		return s.ring
	}
	return append(append([]byte{}, s.ring[s.next:]...), s.ring[:s.next]...)
}

// marker is the line between a truncated stream's head and tail.
func marker(dropped int64) string {
	return fmt.Sprintf("[... %d bytes dropped ...]\n", dropped)
}

// lineSlack is how far back (or on) an end is cut to a line boundary.
const lineSlack = 4

// head is at most n bytes of b's start: cut after a newline within its
// last quarter when there is one, else at a character boundary.
func head(b []byte, n int) []byte {
	h := b[:min(n, len(b))]
	if i := strings.LastIndexByte(string(h), '\n'); i >= 0 && i >= len(h)-len(h)/lineSlack {
		return h[:i+1]
	}
	// A character cut in half by n goes whole.
	for i := len(h) - 1; i >= 0 && i >= len(h)-utf8.UTFMax; i-- {
		if utf8.RuneStart(h[i]) {
			if !utf8.FullRune(h[i:]) {
				h = h[:i]
			}
			break
		}
	}
	return h
}

// tailFrom is at most n bytes of b's end: starting after a newline within
// its first quarter when there is one, else at a character boundary.
func tailFrom(b []byte, n int) []byte {
	t := b[len(b)-min(n, len(b)):]
	if i := strings.IndexByte(string(t), '\n'); i >= 0 && i < len(t)/lineSlack && i+1 < len(t) {
		return t[i+1:]
	}
	for len(t) > 0 && !utf8.RuneStart(t[0]) {
		t = t[1:]
	}
	return t
}

// valid is s as valid UTF-8 within n bytes, and how many of s's bytes
// were not UTF-8: each run of invalid bytes becomes one U+FFFD (as
// strings.ToValidUTF8 does), and what would take the text past n is left
// out, so replacement never makes it longer. Such a run is counted all
// the same: three bytes of U+FFFD may not fit where one byte stood.
func valid(s string, n int) (string, int64) {
	if utf8.ValidString(s) {
		return s, 0
	}
	var b strings.Builder
	var replaced int64
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError || size > 1 {
			if b.Len()+size > n {
				n = b.Len() // nothing more fits; the rest is counted only
			} else {
				b.WriteString(s[i : i+size])
			}
			i += size
			continue
		}
		if b.Len()+len("\uFFFD") > n {
			n = b.Len()
		} else {
			b.WriteString("\uFFFD")
		}
		for i < len(s) {
			if r, size := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || size > 1 {
				break
			}
			i++
			replaced++
		}
	}
	return b.String(), replaced
}
