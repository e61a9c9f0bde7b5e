package batchline

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
)

// Bounds of counting a file's requests for the progress's total: past
// either, the total is not shown, rather than the first run waiting on a
// read of the whole file.
const (
	maxCountedLines = 1_000_000
	maxCountedBytes = 256 << 20
)

// Count is the number of non-blank lines in f when it is a
// regular file (0, unknown, otherwise or past the bounds), read through
// its own reader so f's offset stays at the start.
func Count(f *os.File) int {
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxCountedBytes {
		return 0
	}
	r := bufio.NewReaderSize(io.NewSectionReader(f, 0, fi.Size()), 64<<10)
	n, blank := 0, true
	for {
		chunk, err := r.ReadSlice('\n')
		if len(bytes.TrimSpace(chunk)) > 0 {
			blank = false
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if !blank {
			n++
		}
		blank = true
		if err != nil || n > maxCountedLines {
			break
		}
	}
	if n > maxCountedLines {
		return 0
	}
	return n
}
