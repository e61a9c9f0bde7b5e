package limits

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// FlagError is a rejected configuration value; it names the flag it came from.
type FlagError struct {
	Flag  string
	Value string
	Msg   string
}

// Error reads "--flag: message (got "value")".
func (e *FlagError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("%s: %s", e.Flag, e.Msg)
	}
	return fmt.Sprintf("%s: %s (got %q)", e.Flag, e.Msg, e.Value)
}

var units = map[byte]int64{'b': 1, 'k': 1 << 10, 'm': 1 << 20, 'g': 1 << 30}

// ParseMemory parses a --memory value: a positive integer with an optional
// unit suffix b, k, m or g (binary multiples, as docker reads them), or a
// plain byte count. Fractions are refused rather than rounded, so the limit
// the engine applies is exactly the one asked for.
func ParseMemory(s string) (int64, error) {
	bad := func(msg string) error { return &FlagError{Flag: "--memory", Value: s, Msg: msg} }
	if s == "" {
		return 0, bad("must not be empty")
	}
	digits, mult := s, int64(1)
	if m, ok := units[lower(s[len(s)-1])]; ok {
		digits, mult = s[:len(s)-1], m
	}
	if digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return 0, bad("must be a whole number with an optional unit b, k, m or g, like 512m")
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n > MaxMemory/mult {
		return 0, bad("must be at most " + FormatMemory(MaxMemory))
	}
	n *= mult
	if err := ValidateMemory(n); err != nil {
		return 0, &FlagError{Flag: "--memory", Value: s, Msg: err.(*FlagError).Msg}
	}
	return n, nil
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// ValidateMemory checks a memory limit in bytes.
func ValidateMemory(n int64) error {
	switch {
	case n < MinMemory:
		return &FlagError{Flag: "--memory", Msg: "must be at least " + FormatMemory(MinMemory)}
	case n > MaxMemory:
		return &FlagError{Flag: "--memory", Msg: "must be at most " + FormatMemory(MaxMemory)}
	}
	return nil
}

// FormatMemory renders bytes the way docker reads them, in the largest unit
// that divides exactly, so 536870912 renders as 512m and 1073741824 as 1g.
func FormatMemory(n int64) string {
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"g", 1 << 30}, {"m", 1 << 20}, {"k", 1 << 10}} {
		if n != 0 && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// ParseTimeout parses a --timeout value in Go duration syntax (10s, 1m30s).
func ParseTimeout(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		var numErr *strconv.NumError
		msg := "must be a duration like 10s or 1m30s"
		if errors.As(err, &numErr) {
			msg = "is out of range"
		}
		return 0, &FlagError{Flag: "--timeout", Value: s, Msg: msg}
	}
	if err := ValidateTimeout(d); err != nil {
		return 0, &FlagError{Flag: "--timeout", Value: s, Msg: err.(*FlagError).Msg}
	}
	return d, nil
}

// ValidateTimeout checks a wall-clock limit.
func ValidateTimeout(d time.Duration) error {
	switch {
	case d <= 0:
		return &FlagError{Flag: "--timeout", Msg: "must be greater than 0"}
	case d > MaxTimeout:
		return &FlagError{Flag: "--timeout", Msg: "must be at most " + MaxTimeout.String()}
	}
	return nil
}
