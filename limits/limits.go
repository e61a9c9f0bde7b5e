// Package limits holds the isolation policy as data: the fixed bounds every
// run gets, and the few configurable ones with their validation. It does no I/O.
package limits

import "time"

// Fixed bounds. They are not configurable: each is a boundary the tool
// promises, and the audit checks argvs against exactly these values.
const (
	// UID and GID are the unprivileged identity ("nobody") every program runs as.
	UID = 65534
	GID = 65534
	// CPUs is the CPU quota, in whole CPUs.
	CPUs = 1
	// PIDs is the cgroup task limit; it counts threads as well as processes.
	PIDs = 64
	// NoFile is the soft and hard RLIMIT_NOFILE.
	NoFile = 64
	// Core is the soft and hard RLIMIT_CORE: no core dumps.
	Core = 0
	// TmpBytes is the size of the /tmp tmpfs, the only writable place.
	TmpBytes = 32 << 20
	// MaxRequestBytes bounds an encoded request.
	MaxRequestBytes = 64 << 10
	// MaxOutputBytes bounds the captured program output; more is truncated and flagged.
	MaxOutputBytes = 64 << 10
	// MaxResponseBytes bounds the container's encoded response; more is a sandbox failure.
	MaxResponseBytes = 1 << 20
)

// Configurable bounds and their ranges.
const (
	DefaultMemory  = 512 << 20
	MinMemory      = 64 << 20
	MaxMemory      = 1 << 40
	DefaultTimeout = 10 * time.Second
	MaxTimeout     = 10 * time.Minute
)

// Config is the configurable part of the policy. The zero value is not valid;
// start from Default.
type Config struct {
	// Memory is the container memory limit in bytes; swap is capped to the
	// same value so the program gets no swap at all.
	Memory int64
	// Timeout is the host-enforced wall-clock limit for one run.
	Timeout time.Duration
}

// Default returns the default configuration.
func Default() Config {
	return Config{Memory: DefaultMemory, Timeout: DefaultTimeout}
}

// Validate reports the first bound that is out of range, naming its flag.
func (c Config) Validate() error {
	if err := ValidateMemory(c.Memory); err != nil {
		return err
	}
	return ValidateTimeout(c.Timeout)
}
