package runargs

import (
	"regexp"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// TestIsModuleName holds the hand-written check to the rule as a regular
// expression, on names at and past each bound.
func TestIsModuleName(t *testing.T) {
	rule := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}(\.[A-Za-z_][A-Za-z0-9_]{0,63}){0,7}$`)
	id64, id65 := "a"+strings.Repeat("b", 63), "a"+strings.Repeat("b", 64)
	for _, m := range []string{
		"numpy", "matplotlib.pyplot", "_x", "x9", "A_b.C_d", id64, id65, id64 + "." + id64,
		strings.Repeat("a.", 7) + "a", strings.Repeat("a.", 8) + "a",
		"", ".", "a.", ".a", "a..b", "9a", "a.9b", "numpy;os", "nümpy", "a-b", "a b", "a\n", "a.b\x00",
	} {
		assert.Equal(t, isModuleName(m), rule.MatchString(m), "%q", m)
	}
}
