package limits

import (
	"math/big"
	"strconv"
	"strings"
	"time"
)

// Bytes is a size in bytes. As a flag.Value it reads docker's size grammar
// (the one `docker run --memory` reads), so every size the tool accepts is
// spelled as docker would take it, and prints in the shortest exact unit.
type Bytes int64

// binary unit multipliers, by docker's suffix letters.
var units = map[byte]int64{'k': 1 << 10, 'm': 1 << 20, 'g': 1 << 30, 't': 1 << 40, 'p': 1 << 50}

// ParseBytes reads a size as docker does: a decimal number, an optional
// space, an optional unit k, m, g, t or p (any case, binary multiples), an
// optional "i" after a unit and an optional "b": 512m, 1gb, 1GiB, 1.5g,
// 536870912. Unlike docker it refuses a value that is not a whole number of
// bytes (1.3k) instead of truncating it, so the limit applied is exactly
// the one written. Its range is the caller's to check.
func ParseBytes(s string) (Bytes, error) {
	bad := func(msg string) error { return &FieldError{Value: s, Msg: msg} }
	t, suffixed := s, false
	if n := len(t); n > 0 && (t[n-1] == 'b' || t[n-1] == 'B') {
		t, suffixed = t[:n-1], true
	}
	mult := int64(1)
	if n := len(t); n > 0 && (t[n-1] == 'i' || t[n-1] == 'I') {
		t = t[:n-1]
		if n = len(t); n == 0 || units[lower(t[n-1])] == 0 {
			return 0, bad("must be a number with an optional unit k, m, g, t or p, like 512m or 1GiB")
		}
	}
	if n := len(t); n > 0 {
		if m, ok := units[lower(t[n-1])]; ok {
			mult, t, suffixed = m, t[:n-1], true
		}
	}
	if suffixed {
		t = strings.TrimSuffix(t, " ") // docker allows one space before the unit
	}
	intPart, frac, hasDot := strings.Cut(t, ".")
	if !digits(intPart) || hasDot && !digits(frac) {
		return 0, bad("must be a number with an optional unit k, m, g, t or p, like 512m or 1GiB")
	}
	r, ok := new(big.Rat).SetString(t)
	if !ok {
		return 0, bad("must be a number with an optional unit k, m, g, t or p, like 512m or 1GiB")
	}
	r.Mul(r, new(big.Rat).SetInt64(mult))
	if !r.IsInt() {
		return 0, bad("must be a whole number of bytes")
	}
	if !r.Num().IsInt64() {
		return 0, bad("is out of range")
	}
	return Bytes(r.Num().Int64()), nil
}

func digits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// String renders b the way docker reads it, in the largest unit that
// divides exactly: 536870912 is 512m, 1073741824 is 1g, 67108865 stays.
func (b Bytes) String() string {
	n := int64(b)
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

// Set parses s into b; it makes *Bytes a flag.Value. A zero or negative
// size is refused: docker reads --memory 0 as no limit at all.
func (b *Bytes) Set(s string) error {
	n, err := ParseBytes(s)
	if err != nil {
		return err
	}
	if n <= 0 {
		return &FieldError{Value: s, Msg: "must be greater than 0"}
	}
	*b = n
	return nil
}

// ParseTimeout reads a duration in Go syntax (10s, 1m30s) that is more
// than zero (zero is not "the default" when written out). Its upper bound
// is the caller's to check.
func ParseTimeout(s string) (time.Duration, error) {
	d, fe := parseDuration(s)
	if fe != nil {
		fe.Field = "timeout"
		return 0, fe
	}
	return d, nil
}

// parseDuration is the one grammar of durations, for ParseTimeout and
// Duration; the error names no field.
func parseDuration(s string) (time.Duration, *FieldError) {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return 0, &FieldError{Value: s, Msg: "must be a duration like 10s or 1m30s"}
	case d <= 0:
		return 0, &FieldError{Value: s, Msg: "must be greater than 0"}
	}
	return d, nil
}

// Duration is a wall-clock duration more than zero, in Go syntax (10s,
// 1m30s). As a flag.Value it is parsed once, by the flag itself; its range
// is checked with everything else by the library (Config.Resolve, the pool).
type Duration time.Duration

// String prints the duration in Go syntax.
func (d Duration) String() string { return time.Duration(d).String() }

// Set parses s; the flag's name is the caller's to add to the message.
func (d *Duration) Set(s string) error {
	v, fe := parseDuration(s)
	if fe != nil {
		return fe
	}
	*d = Duration(v)
	return nil
}
