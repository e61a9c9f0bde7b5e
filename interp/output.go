package interp

import (
	"strings"
	"unicode/utf8"
)

// CappedBuffer keeps the first n bytes written to it and counts the rest.
// Writes never fail, so a program that floods output keeps running (and
// is stopped by its deadline) instead of blocking on a full pipe.
type CappedBuffer struct {
	buf   strings.Builder
	limit int
	total int64
}

// NewCappedBuffer returns a buffer that keeps at most limit bytes.
func NewCappedBuffer(limit int) *CappedBuffer { return &CappedBuffer{limit: limit} }

// Write implements io.Writer; it always reports all of p written.
func (c *CappedBuffer) Write(p []byte) (int, error) {
	c.total += int64(len(p))
	if room := c.limit - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// WriteString is Write for strings.
func (c *CappedBuffer) WriteString(s string) {
	c.total += int64(len(s))
	if room := c.limit - c.buf.Len(); room > 0 {
		c.buf.WriteString(s[:min(room, len(s))])
	}
}

// Result returns the kept output as valid UTF-8, the total bytes written,
// and whether anything was dropped. Invalid bytes, and a character cut in
// half by the cap, become U+FFFD; the text is then trimmed back to the cap
// so replacement never makes it longer than the limit.
func (c *CappedBuffer) Result() (string, int64, bool) {
	s := c.buf.String()
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
		for len(s) > c.limit {
			_, size := utf8.DecodeLastRuneInString(s)
			s = s[:len(s)-size]
		}
	}
	return s, c.total, c.total > int64(c.buf.Len())
}
