package cli

import (
	"io"
	"sync"
)

// checkedWriter is every command's stdout. It keeps the first write that
// failed (a closed pipe, a full disk), so that run can exit as the tool's
// own failure (125) whichever command wrote and whether or not it looked
// at the error: a script must never read a status for output it did not
// get.
type checkedWriter struct {
	w   io.Writer
	mu  sync.Mutex // batch writes its results from several goroutines
	err error
}

func (cw *checkedWriter) Write(p []byte) (int, error) {
	n, err := cw.w.Write(p)
	if err != nil {
		cw.mu.Lock()
		if cw.err == nil {
			cw.err = err
		}
		cw.mu.Unlock()
	}
	return n, err
}

// failed is the first write's error, nil if every write succeeded.
func (cw *checkedWriter) failed() error {
	cw.mu.Lock()
	defer cw.mu.Unlock()
	return cw.err
}
