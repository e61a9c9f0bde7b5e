// Package capture holds the tool's bounded writers. Stream keeps a
// program's output, head and tail: the evaluator's print output and the
// runner's exec-mode stdout and stderr, which share one bound (Keep).
// Buffer keeps a head only: the supervisor's read of the container's
// response and the runner's read of its Starlark child's, where only a
// frame that fits whole is of use.
package capture

import "sync"

// Buffer keeps the first Limit bytes written to it and counts the rest.
// Writes never fail, so whoever feeds it (a program's print, a copy from a
// pipe) keeps going instead of blocking on a full pipe; the first write
// past the limit calls OnOverflow once, so the owner can stop the writer on
// purpose. It is safe for concurrent use.
type Buffer struct {
	// OnOverflow, if set, is called once, with the buffer locked, by the
	// write that first passes the limit. It must not call the buffer.
	OnOverflow func()

	mu    sync.Mutex
	buf   []byte
	limit int
	total int64
}

// New returns a buffer that keeps at most limit bytes.
func New(limit int) *Buffer { return &Buffer{limit: limit} }

// Write implements io.Writer; it always reports all of p written.
func (b *Buffer) Write(p []byte) (int, error) { return write(b, p) }

// WriteString is Write for strings, without a copy to []byte.
func (b *Buffer) WriteString(s string) (int, error) { return write(b, s) }

func write[T []byte | string](b *Buffer, p T) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.add(len(p))
	if room := b.limit - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (b *Buffer) add(n int) {
	before := b.total
	b.total += int64(n)
	if before <= int64(b.limit) && b.total > int64(b.limit) && b.OnOverflow != nil {
		b.OnOverflow()
	}
}

// Bytes returns the kept bytes. The caller must not modify them.
func (b *Buffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf
}

// Total is the number of bytes written, kept or not.
func (b *Buffer) Total() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total
}

// Truncated reports whether anything written was dropped.
func (b *Buffer) Truncated() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total > int64(len(b.buf))
}
