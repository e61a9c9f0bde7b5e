package protocol

import (
	"testing"

	"gotest.tools/v3/assert"
)

func TestParseCompare(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Comparison{
		"":                {Mode: CompareLines},
		"lines":           {Mode: CompareLines},
		"exact":           {Mode: CompareExact},
		"float:1e-6":      {Mode: CompareFloat, Abs: 1e-6},
		"float:0:1e-9":    {Mode: CompareFloat, Rel: 1e-9},
		"float:0.5:0.25":  {Mode: CompareFloat, Abs: 0.5, Rel: 0.25},
		"float:1E-3:.001": {Mode: CompareFloat, Abs: 1e-3, Rel: 1e-3},
	} {
		got, err := ParseCompare(in)
		assert.NilError(t, err, in)
		assert.Equal(t, got, want, in)
	}
	for in, want := range map[string]string{
		"float":        `compare: must be "lines", "exact" or "float:ABS[:REL]" (got "float")`,
		"Lines":        `compare: must be "lines", "exact" or "float:ABS[:REL]" (got "Lines")`,
		"float:":       `compare "float:": ABS must be a finite decimal number`,
		"float:-1":     `compare "float:-1": ABS must not be negative`,
		"float:1:x":    `compare "float:1:x": REL must be a finite decimal number`,
		"float:inf":    `compare "float:inf": ABS must be a finite decimal number`,
		"float:nan":    `compare "float:nan": ABS must be a finite decimal number`,
		"float:0x1p-3": `compare "float:0x1p-3": ABS must be a finite decimal number`,
		"float:1:2:3":  `compare "float:1:2:3": REL must be a finite decimal number`,
		"float:1e999":  `compare "float:1e999": ABS must be a finite decimal number`,
		"float:1_0":    `compare "float:1_0": ABS must be a finite decimal number`,
	} {
		_, err := ParseCompare(in)
		assert.Error(t, err, want, in)
	}
}
