package fakedocker

import (
	"os"
	"syscall"
)

// WriteExecutable writes data to path as an executable file, holding
// syscall.ForkLock while the file is open for writing. Without it, a
// process that another test forks meanwhile inherits the write descriptor
// until its exec, and executing path in that window fails with ETXTBSY
// ("text file busy"): a flake of tests that run in parallel.
func WriteExecutable(path string, data []byte) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	return os.WriteFile(path, data, 0o755)
}
