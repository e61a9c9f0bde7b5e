package limits

import (
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestParseMemory(t *testing.T) {
	for in, want := range map[string]int64{
		"256m": 256 << 20, "1g": 1 << 30, "536870912": 512 << 20, "64m": 64 << 20,
		"65536k": 64 << 20, "512M": 512 << 20, "2G": 2 << 30, "67108864b": 64 << 20,
	} {
		got, err := ParseMemory(in)
		assert.NilError(t, err, in)
		assert.Equal(t, got, want, in)
	}
}

func TestParseMemoryRejects(t *testing.T) {
	for in, want := range map[string]string{
		"0":                    `--memory: must be at least 64m (got "0")`,
		"-1":                   `--memory: must be a whole number with an optional unit b, k, m or g, like 512m (got "-1")`,
		"63m":                  `--memory: must be at least 64m (got "63m")`,
		"1.5g":                 `--memory: must be a whole number with an optional unit b, k, m or g, like 512m (got "1.5g")`,
		"":                     `--memory: must not be empty`,
		"m":                    `--memory: must be a whole number with an optional unit b, k, m or g, like 512m (got "m")`,
		"512mb":                `--memory: must be a whole number with an optional unit b, k, m or g, like 512m (got "512mb")`,
		"2048g":                `--memory: must be at most 1024g (got "2048g")`,
		"99999999999999999999": `--memory: must be at most 1024g (got "99999999999999999999")`,
		" 512m":                `--memory: must be a whole number with an optional unit b, k, m or g, like 512m (got " 512m")`,
	} {
		_, err := ParseMemory(in)
		assert.Error(t, err, want, in)
	}
}

func TestFormatMemory(t *testing.T) {
	for n, want := range map[int64]string{512 << 20: "512m", 1 << 30: "1g", 64<<20 + 1: "67108865", 65 << 10: "65k"} {
		assert.Equal(t, FormatMemory(n), want)
	}
}

func TestParseTimeout(t *testing.T) {
	d, err := ParseTimeout("1m30s")
	assert.NilError(t, err)
	assert.Equal(t, d, 90*time.Second)
	for in, want := range map[string]string{
		"0":    `--timeout: must be greater than 0 (got "0")`,
		"-1s":  `--timeout: must be greater than 0 (got "-1s")`,
		"10":   `--timeout: must be a duration like 10s or 1m30s (got "10")`,
		"11m":  `--timeout: must be at most 10m0s (got "11m")`,
		"soon": `--timeout: must be a duration like 10s or 1m30s (got "soon")`,
	} {
		_, err := ParseTimeout(in)
		assert.Error(t, err, want, in)
	}
}

func TestValidateImageID(t *testing.T) {
	good := "sha256:" + strings.Repeat("ab", 32)
	assert.NilError(t, ValidateImageID(good))
	for _, in := range []string{
		"", "python:latest", "sha256:abc123", "abababababab", strings.Repeat("ab", 32),
		"sha256:" + strings.Repeat("AB", 32), "busybox@" + good, "sha256:" + strings.Repeat("ab", 32) + "0",
		"sha512:" + strings.Repeat("ab", 32), "sha256:" + strings.Repeat("gz", 32),
	} {
		err := ValidateImageID(in)
		assert.Check(t, err != nil, in)
		assert.Check(t, is.Contains(err.Error(), "--image"), in)
	}
}

func TestConfigValidate(t *testing.T) {
	assert.NilError(t, Default().Validate())
	assert.Error(t, Config{Memory: 1, Timeout: time.Second}.Validate(), "--memory: must be at least 64m")
	assert.Error(t, Config{Memory: MinMemory}.Validate(), "--timeout: must be greater than 0")
}
