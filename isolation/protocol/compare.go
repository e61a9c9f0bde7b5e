package protocol

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// CompareFloat is the prefix of a float comparison, "float:ABS[:REL]":
// tokens compared one by one, a number within an absolute or a relative
// epsilon of the expected one, any other token exactly.
const CompareFloat = "float"

// Comparison is a compare mode read by ParseCompare: Mode is CompareLines,
// CompareExact or CompareFloat, and Abs and Rel a float comparison's
// epsilons (Rel 0 when not given).
type Comparison struct {
	Mode     string
	Abs, Rel float64
}

// ParseCompare reads a request's compare mode: "" or "lines", "exact", or
// "float:ABS[:REL]" with ABS and REL finite decimal numbers of at least 0
// ("float:1e-6", "float:0:1e-9").
func ParseCompare(s string) (Comparison, error) {
	switch s {
	case "", CompareLines:
		return Comparison{Mode: CompareLines}, nil
	case CompareExact:
		return Comparison{Mode: CompareExact}, nil
	}
	rest, ok := strings.CutPrefix(s, CompareFloat+":")
	if !ok {
		return Comparison{}, fmt.Errorf("compare: must be %q, %q or %q (got %q)", CompareLines, CompareExact, "float:ABS[:REL]", s)
	}
	absText, relText, hasRel := strings.Cut(rest, ":")
	c := Comparison{Mode: CompareFloat}
	var err error
	if c.Abs, err = epsilon(absText, "ABS"); err == nil && hasRel {
		c.Rel, err = epsilon(relText, "REL")
	}
	if err != nil {
		return Comparison{}, fmt.Errorf("compare %q: %w", s, err)
	}
	return c, nil
}

// epsilon reads one epsilon of a float comparison: a finite decimal
// number of at least 0.
func epsilon(s, what string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil || strings.ContainsAny(s, "xX_") || math.IsNaN(v) || math.IsInf(v, 0):
		return 0, fmt.Errorf("%s must be a finite decimal number", what)
	case v < 0:
		return 0, fmt.Errorf("%s must not be negative", what)
	}
	return v, nil
}
