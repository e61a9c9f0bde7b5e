package dockerargs

import (
	"fmt"
	"strconv"
	"strings"
)

// parseDockerBytes reads a size the way docker's CLI does (binary units,
// case-insensitive suffix k, m, g, t or p, optional "b" or "ib", decimals
// allowed), so the audit judges the limit docker would actually apply.
func parseDockerBytes(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	t = strings.TrimSuffix(t, "b")
	t = strings.TrimSuffix(t, "i")
	mult := 1.0
	if n := len(t); n > 0 {
		if i := strings.IndexByte("kmgtp", t[n-1]); i >= 0 {
			mult = float64(int64(1) << (10 * (i + 1)))
			t = t[:n-1]
		}
	}
	t = strings.TrimSpace(t)
	if t == "" || strings.Trim(t, "0123456789.") != "" {
		return 0, fmt.Errorf("invalid size %q", s)
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f > 1<<62 {
		return 0, fmt.Errorf("invalid size %q", s)
	}
	return int64(f * mult), nil
}
